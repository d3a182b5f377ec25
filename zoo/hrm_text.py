"""HRM-Text (Hugging Face transformers, tiny configuration): a hierarchical recurrent model, a slow
high-level stack and a fast low-level stack run in nested cycles over the same tokens (2 high-level
cycles of 2 low-level ones, the low-level state starting from a frozen parameter, the token embeddings
scaled by 50), the gradient routed only through the last low-level cycle of each (the one-step
gradient: the earlier cycle runs under `no_grad`), attention outputs gated by a sigmoid, and prefix-LM
attention: the first 6 tokens, marked by `token_type_ids`, attend to each other both ways, the rest
causally."""

import numpy as np
import torch
from common import run, tokens
from transformers import HrmTextConfig, HrmTextForCausalLM

VOCAB, PREFIX = 96, 6


def build() -> HrmTextForCausalLM:
    config = HrmTextConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=1, num_attention_heads=4,
        head_dim=16, max_position_embeddings=32, H_cycles=2, L_cycles=2, L_bp_cycles=[1],
    )  # fmt: skip
    return HrmTextForCausalLM(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The language-model loss of a batch of tokens (4 x 16) on the tokens after the prefix."""
    ids = tokens(rng, VOCAB)
    prefix = torch.zeros_like(ids)
    prefix[:, :PREFIX] = 1
    labels = ids.clone()
    labels[:, :PREFIX] = -100
    return model(input_ids=ids, token_type_ids=prefix, labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
