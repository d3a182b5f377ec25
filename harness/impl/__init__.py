"""Reference implementation of PyTorch's CPU float32 arithmetic, in C and NumPy, without torch.

It reproduces torch 2.13.0's CPU results bit for bit for the 26 recorded ops (``ops.py``,
``run_case``) and for nanoGPT training (``nanogpt.py``), under a kernel profile per platform
(``profiles.py``) and a thread count, and the 2-D convolutions that traces replay (``conv.py``;
with groups ``conv_grouped.py``; 3-D ``conv3d.py``).
``docs/impl/kernels.md`` says where every bit comes from;
``known_gaps.json`` lists what is not yet exact, with measured ULP. This package never
imports torch.
"""
