"""The fixture store: a content-addressed tensor pool, fixtures that name their tensors by key,
manifests, completeness checks against the generator's spec, and store maintenance.

- ``hdf5``: tensor keys and digests, checked reads of untrusted files, atomic writes
- ``pool``: the tensor pool shared by every fixture of a store
- ``fixture``: fixture files (store, packed and version 1 forms), reader and writer
- ``spec``: what a complete op or nanoGPT fixture holds
- ``maintenance``: verify, list, pack, import, gc and migrate over a store
"""

from harness.store.fixture import FORMAT, SCHEMA_VERSION, TENSORS, FixtureReader, FixtureWriter
from harness.store.hdf5 import canonical, json_attr, tensor_digest

__all__ = [
    "FORMAT",
    "SCHEMA_VERSION",
    "TENSORS",
    "FixtureReader",
    "FixtureWriter",
    "canonical",
    "json_attr",
    "tensor_digest",
]
