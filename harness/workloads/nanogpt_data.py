"""A deterministic character-level token stream and batch sampler, made without downloads.

The vocabulary is the 65 characters of nanoGPT's shakespeare_char data set (newline, space,
``!$&',-.3:;?``, A-Z, a-z), encoded as their index in that sorted string, as nanoGPT's
prepare.py does. The text is pseudo-English made by NumPy's PCG64 from a fixed seed: a
lexicon of 600 invented words of 1 to 9 letters drawn with Zipf-like frequencies, lines of 3
to 11 words starting with a capital and ending in punctuation, speaker names in capitals,
and the rare characters ($&'-3) sprinkled in, so every token of the vocabulary occurs.

Batches are drawn like nanoGPT's get_batch (random offsets, x = data[i:i+T], y = the same
shifted by one), but from NumPy's PCG64, so torch's generator serves only the model's
initialisation and dropout. Every batch is stored in the fixture: replay never needs this code.
This module never imports torch.
"""

from __future__ import annotations

import numpy as np

VOCAB = "\n !$&',-.3:;?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
assert len(VOCAB) == 65 and "".join(sorted(VOCAB)) == VOCAB

TEXT_SEED = 20260101
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_VOWELS = "aeiouy"


def _lexicon(rng: np.random.Generator, size: int = 600) -> list[str]:
    words = set()
    while len(words) < size:
        n = int(rng.integers(1, 10))
        letters = [
            _VOWELS[rng.integers(len(_VOWELS))] if i % 2 else _LOWER[rng.integers(len(_LOWER))] for i in range(n)
        ]
        words.add("".join(letters))
    return sorted(words)


def make_text(n_chars: int = 200_000, seed: int = TEXT_SEED) -> str:
    """Pseudo-English of at least ``n_chars`` characters from the 65-character vocabulary."""
    rng = np.random.Generator(np.random.PCG64(seed))
    words = _lexicon(rng)
    weights = 1.0 / np.arange(1, len(words) + 1)  # Zipf-like
    weights /= weights.sum()
    speakers = [w.upper() for w in words[:12] if len(w) > 2]
    parts: list[str] = []
    size = 0
    while size < n_chars:
        line = []
        speaker = speakers[rng.integers(len(speakers))] + ":\n" if rng.random() < 0.15 else ""
        count = int(rng.integers(3, 12))
        picked = [words[i] for i in rng.choice(len(words), size=count, p=weights)]
        picked[0] = picked[0].capitalize()
        for j, word in enumerate(picked):
            r = rng.random()
            if r < 0.01:
                word = f"{word}'s"
            elif r < 0.015:
                word = f"{word}-{picked[(j + 1) % count]}"
            elif r < 0.017:
                word = rng.choice(["$3", "&", "3"])
            line.append(word + ("," if rng.random() < 0.08 and j < count - 1 else ""))
        text = speaker + " ".join(line) + str(rng.choice(list(".!?;:."))) + "\n"
        if rng.random() < 0.1:
            text += "\n"
        parts.append(text)
        size += len(text)
    return "".join(parts)


def encode(text: str) -> np.ndarray:
    """Characters to token ids (uint16, as nanoGPT's train.bin)."""
    lookup = np.full(128, -1, dtype=np.int64)
    lookup[[ord(c) for c in VOCAB]] = np.arange(len(VOCAB))
    codes = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    ids = lookup[codes]
    if (ids < 0).any():
        raise ValueError("text has characters outside the vocabulary")
    return ids.astype(np.uint16)


def decode(ids: np.ndarray) -> str:
    return "".join(VOCAB[int(i)] for i in ids)


def make_batches(
    tokens: np.ndarray, steps: int, batch_size: int, block_size: int, seed: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """One (x, y) int64 pair of shape (batch_size, block_size) per step."""
    rng = np.random.Generator(np.random.PCG64(seed))
    batches = []
    for _ in range(steps):
        ix = rng.integers(0, len(tokens) - block_size, size=batch_size)
        x = np.stack([tokens[i : i + block_size] for i in ix]).astype(np.int64)
        y = np.stack([tokens[i + 1 : i + 1 + block_size] for i in ix]).astype(np.int64)
        batches.append((x, y))
    return batches
