"""Dataset loading: one immutable `Item` per benchmark example, whatever the source format.

`records` owns the record types (`Item`, `LoadError`, `LoadResult`) and the content hash;
`folio` reads FOLIO in its published layouts (v0 JSONL, v2 JSONL/JSON/CSV, the Hugging Face Hub)
and plain FOL lists for linting. A malformed row becomes a `LoadError`; only an input that cannot
be read at all raises `DataError`.
"""
