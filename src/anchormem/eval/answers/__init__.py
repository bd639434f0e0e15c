"""The answers benchmark: the block each system hands a reader, answered by a reader model (a live
endpoint or batch files), graded by a judge, scored with a key the reader never sees."""
