function fold = mlfs_task_fold(data_dir, dataset, index)
%MLFS_TASK_FOLD  What every task on one fold reads from it: the fold file's path, its validated data
%   (mlfs_load_fold), the file's SHA-256 and the training part's (mlfs_training_sha256).
%   mlfs_run_many reads each fold once for all of its methods: reading and hashing a fold took
%   about 0.1 s per task, for skipped tasks too. A fold that cannot be read is not an error here:
%   fold.error keeps it, and each task on the fold fails with it (mlfs_run_task), as it would alone.
  fold = struct('index', index, 'file', fullfile(data_dir, dataset, sprintf('fold%d.mat', index)), ...
                'data', [], 'sha256', '', 'training_sha256', '', 'error', []);
  try
    fold.data = mlfs_load_fold(fold.file);
    fold.sha256 = mlfs_sha256_file(fold.file);
    fold.training_sha256 = mlfs_training_sha256(fold.data.X_train, fold.data.Y_train);
  catch err
    fold.error = err;
  end
end
