"""SLANet (Hugging Face transformers, tiny configuration): table-structure recognition: a PP-LCNet
backbone (hard-swish, depthwise-separable convolutions) and a CSP-PAN neck, then a recurrent decoder
that runs its own greedy loop: each step an additive attention over the feature map (``tanh`` of the
projected features plus the projected state, a softmax over positions), the context and the one-hot of
the previous step's ``argmax`` fed to an ``nn.GRUCell``; the loss the cross entropy of the steps'
log-probabilities against random structure tokens."""

import numpy as np
import torch
from common import images, run
from transformers import SLANetConfig, SLANetForTableRecognition

TOKENS, STEPS = 12, 6  # the structure vocabulary (the last the end token); decoder steps at most


def build() -> SLANetForTableRecognition:
    backbone = {"model_type": "pp_lcnet", "scale": 0.25, "out_features": ["stage2", "stage3", "stage4", "stage5"],
                "out_indices": [2, 3, 4, 5], "divisor": 8}  # fmt: skip
    config = SLANetConfig(
        backbone_config=backbone, post_conv_out_channels=16, out_channels=TOKENS, hidden_size=32,
        max_text_length=STEPS - 1,
    )  # fmt: skip
    return SLANetForTableRecognition(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random 64 x 64 images; the mean negative log-probability of a random token at each step the
    decoder ran (it stops early only where every image predicted the end token)."""
    probs = model(pixel_values=images(rng, batch=2, size=64)).last_hidden_state  # (batch, steps, tokens)
    targets = torch.from_numpy(rng.integers(0, TOKENS, (2, STEPS)))[:, : probs.shape[1]]
    return torch.nn.functional.nll_loss(probs.log().flatten(0, 1), targets.flatten())


if __name__ == "__main__":
    run(build, loss_of)
