"""UVDoc (Hugging Face transformers, tiny configuration): document unwarping: a ResNet of 5 x 5 convolutions
(dilated in its residual blocks), a bridge of parallel stacks of dilated 3 x 3 convolutions (dilations up
to 8) over the same features, concatenated, and a head of reflection-padded convolutions with PReLU
predicting a coarse 2-D sampling grid; the grid upsampled bilinearly (corners aligned) to the page and
the page resampled through it by ``grid_sample``. Trained on the L1 distance of the grid to a random
grid and the squared error of the rectified page."""

import numpy as np
import torch
from common import images, run
from transformers import UVDocBackboneConfig, UVDocConfig, UVDocModel

SIZE = 48


def build() -> UVDocModel:
    backbone = UVDocBackboneConfig(
        resnet_head=[[3, 8], [8, 8]],
        resnet_configs=[[[8, 8, 1, False], [8, 8, 3, False]], [[8, 16, 1, True], [16, 16, 3, False]]],
        stage_configs=[[[16, 1]], [[16, 4], [16, 2]], [[16, 8]]], out_features=["stage1", "stage2", "stage3"],
    )  # fmt: skip
    config = UVDocConfig(backbone_config=backbone, bridge_connector=[16, 16], out_point_positions2D=[[16, 8], [8, 2]])
    return UVDocModel(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random 48 x 48 pages: the predicted grid's L1 distance to a random grid in [-1, 1] and the squared
    error of the page resampled through the upsampled grid against another random page."""
    page = images(rng, batch=2, size=SIZE)
    grid = model(pixel_values=page).last_hidden_state
    target = torch.from_numpy(rng.uniform(-1, 1, tuple(grid.shape)).astype(np.float32))
    dense = torch.nn.functional.interpolate(grid, size=(SIZE, SIZE), mode="bilinear", align_corners=True)
    rectified = torch.nn.functional.grid_sample(page, dense.permute(0, 2, 3, 1), align_corners=True)
    clean = images(rng, batch=2, size=SIZE)
    return (grid - target).abs().mean() + ((rectified - clean) ** 2).mean()


if __name__ == "__main__":
    run(build, loss_of)
