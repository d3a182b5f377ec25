"""V-JEPA 2 (Hugging Face transformers, tiny configuration): self-supervised video prediction: a
Conv3d of tubelets (2 frames of 8 x 8 pixels), rotary positions split three ways over each head
(frame, row and column), a predictor that gathers the context patches (``gather`` by index), adds a
learned mask token for each target patch, sorts context and targets together by position (``argsort``)
and undoes the sort after its layers. The loss is JEPA's: the L1 distance of the predicted target
patches to the encoder's own, detached."""

import numpy as np
import torch
from common import run
from transformers import VJEPA2Config, VJEPA2Model

PATCHES, CONTEXT = 32, 20  # 2 tubelets of 4 x 4 patches; patches the predictor sees


def build() -> VJEPA2Model:
    config = VJEPA2Config(
        patch_size=8, crop_size=32, frames_per_clip=4, tubelet_size=2, hidden_size=48, num_attention_heads=2,
        num_hidden_layers=2, mlp_ratio=2.0, pred_hidden_size=24, pred_num_attention_heads=2,
        pred_num_hidden_layers=2, pred_num_mask_tokens=2, pred_mlp_ratio=2.0, num_pooler_layers=1,
    )  # fmt: skip
    return VJEPA2Model(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random clips of 4 frames of 32 x 32; each clip's 32 patches split at random into 20 of
    context and 12 to predict; the mean L1 distance of the predictions to the detached targets."""
    video = torch.from_numpy(rng.standard_normal((2, 4, 3, 32, 32)).astype(np.float32))
    order = np.stack([rng.permutation(PATCHES) for _ in range(2)])
    context, target = torch.from_numpy(order[:, :CONTEXT]), torch.from_numpy(order[:, CONTEXT:])
    out = model(pixel_values_videos=video, context_mask=[context], target_mask=[target]).predictor_output
    return (out.last_hidden_state - out.target_hidden_state.detach()).abs().mean()


if __name__ == "__main__":
    run(build, loss_of)
