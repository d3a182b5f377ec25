"""ESM (Hugging Face transformers, tiny configuration): a masked protein language model with rotary
positions applied after the queries are scaled, token dropout (masked tokens' embeddings zeroed and
the rest rescaled by the observed mask ratio), a pre-norm encoder, labels of -100 outside the masked
positions."""

import numpy as np
import torch
from common import run, tokens
from transformers import EsmConfig, EsmForMaskedLM

VOCAB, MASK, PAD = 33, 32, 1


def build() -> EsmForMaskedLM:
    config = EsmConfig(
        vocab_size=VOCAB, mask_token_id=MASK, pad_token_id=PAD, hidden_size=64, num_hidden_layers=2,
        num_attention_heads=4, intermediate_size=128, max_position_embeddings=40,
        position_embedding_type="rotary", token_dropout=True, emb_layer_norm_before=False,
    )  # fmt: skip
    return EsmForMaskedLM(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The cross entropy of the original tokens at a random quarter of the positions, those masked."""
    ids = tokens(rng, 28)
    ids = ids + 4  # the amino-acid ids, past the special tokens
    masked = torch.from_numpy(rng.random(tuple(ids.shape)) < 0.25)
    labels = torch.where(masked, ids, torch.full_like(ids, -100))
    return model(input_ids=torch.where(masked, torch.full_like(ids, MASK), ids), labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
