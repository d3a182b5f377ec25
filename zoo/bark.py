"""Bark (Hugging Face transformers, tiny configuration): the coarse and fine acoustic models of text to
speech. The coarse model is a GPT whose LayerNorms and linears carry no bias (Bark's bias=False), its causal
attention written out (masked_fill of a boolean lower-triangle buffer's slice == 0 with the dtype's minimum,
softmax, matmul); it learns the next token of interleaved coarse codes after semantic tokens. The fine model
is non-causal: every codebook's embedding unsqueezed and concatenated on a new last dim, the first
codebook_idx + 1 of them summed over it, learned positions; one bias-free head per predicted codebook, tied to
the next codebook's embedding table; it learns codebooks 2 and 3 of random 4-codebook clips."""

import numpy as np
import torch
from common import run
from transformers import BarkCoarseConfig, BarkCoarseModel, BarkFineConfig, BarkFineModel

VOCAB, CODES, CODEBOOKS, LENGTH = 48, 32, 4, 12


def build() -> torch.nn.ModuleDict:
    sizes = {"block_size": 32, "num_layers": 2, "num_heads": 2, "hidden_size": 32}
    coarse = BarkCoarseModel(BarkCoarseConfig(input_vocab_size=VOCAB, output_vocab_size=VOCAB, bias=False, **sizes))
    fine_config = BarkFineConfig(
        input_vocab_size=CODES, output_vocab_size=CODES, n_codes_total=CODEBOOKS, n_codes_given=1, **sizes
    )
    fine = BarkFineModel(fine_config)
    return torch.nn.ModuleDict({"coarse": coarse, "fine": fine})


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The coarse model's next-token cross entropy on 2 random sequences of 16 tokens, plus the fine model's
    cross entropy of codebooks 2 and 3 of 2 random clips of 12 frames."""
    seq = torch.from_numpy(rng.integers(0, VOCAB, (2, 16)))
    logits = model["coarse"](input_ids=seq).logits
    loss = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), seq[:, 1:].reshape(-1))
    codes = torch.from_numpy(rng.integers(0, CODES, (2, LENGTH, CODEBOOKS)))
    for idx in (2, 3):
        logits = model["fine"](idx, input_ids=codes).logits
        loss = loss + torch.nn.functional.cross_entropy(logits.reshape(-1, CODES), codes[:, :, idx].reshape(-1))
    return loss


if __name__ == "__main__":
    run(build, loss_of)
