"""The results folder: its paths and file names (:mod:`.layout`), the schemas of the records it holds
(:mod:`.schema`), the digest a metrics file carries of its own content (:mod:`.digest`) and whether a
record is still good (:mod:`.staleness`)."""
