"""XLM (Hugging Face transformers, tiny configuration): post-norm attention blocks over fixed sinusoidal
positions and a language embedding, the padding mask multiplied into the hidden states after the
embeddings and each block, GELU, the output layer tied to the embeddings with a bias of its own."""

import numpy as np
import torch
from common import run, tokens
from transformers import XLMConfig, XLMWithLMHeadModel

VOCAB = 96


def build() -> XLMWithLMHeadModel:
    config = XLMConfig(
        vocab_size=VOCAB, emb_dim=32, n_layers=2, n_heads=2, max_position_embeddings=32, n_langs=2,
        use_lang_emb=True, sinusoidal_embeddings=True, causal=False, pad_index=0,
    )  # fmt: skip
    return XLMWithLMHeadModel(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The model's loss on a batch of tokens (the last 3 of two rows padded) in language 1, its own labels."""
    ids = tokens(rng, VOCAB)
    mask = torch.ones_like(ids)
    mask[:2, -3:] = 0
    langs = torch.ones_like(ids)
    return model(input_ids=ids, attention_mask=mask, langs=langs, labels=ids).loss


if __name__ == "__main__":
    run(build, loss_of)
