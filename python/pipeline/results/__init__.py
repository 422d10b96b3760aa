"""The results folder: its paths and file names (:mod:`.layout`), the schemas of the records it holds
(:mod:`.schema`) and whether a record is still good (:mod:`.staleness`)."""
