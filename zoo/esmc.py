"""ESM C (Hugging Face transformers, tiny configuration): a protein language model whose queries and keys
are layer-normed without a bias over all heads together before rotary positions, a SwiGLU MLP whose
residual branch is divided by sqrt(layers / 36), layer norms without a bias, and a masked-LM head of
``linear``, exact ``gelu`` and a layer norm. The loss is over 15% of positions masked by the mask token."""

import torch
from common import run, tokens
from transformers import EsmcConfig, EsmcForMaskedLM

VOCAB, MASK = 33, 32


def build() -> EsmcForMaskedLM:
    config = EsmcConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        mask_token_id=MASK,
    )  # fmt: skip
    return EsmcForMaskedLM(config)


def loss_of(model, rng):
    """4 sequences of 16 residues (ids 4..23), about 15% replaced by the mask token; labels -100 elsewhere."""
    ids = tokens(rng, 20, 4, 16) + 4
    masked = torch.from_numpy(rng.random((4, 16)) < 0.15)
    masked[:, 3] = True
    labels = torch.where(masked, ids, -100)
    return model(input_ids=ids.masked_fill(masked, MASK), labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
