function settled = mlfs_objective_settled(previous, current, tol)
%MLFS_OBJECTIVE_SETTLED  The stopping test of the MLC_toolbox methods (MIFS, RFS): the objective
%   moved by less than tol, absolutely or relative to its previous value.
%   Twin of pipeline.methods.rfs.objective_settled.
  change = abs(current - previous);
  settled = change < tol || change / previous < tol;
end
