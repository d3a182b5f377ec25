"""ViViT (Hugging Face transformers, tiny configuration): a 3-D convolutional tubelet embedding of a
whole clip, a learned class token and positions, a fast-GELU encoder."""

from common import run, video_classification_loss
from transformers import VivitConfig, VivitForVideoClassification


def build() -> VivitForVideoClassification:
    config = VivitConfig(
        image_size=16, num_frames=4, tubelet_size=[2, 4, 4], hidden_size=32, num_hidden_layers=1,
        num_attention_heads=2, intermediate_size=64, num_labels=5,
    )  # fmt: skip
    return VivitForVideoClassification(config)


if __name__ == "__main__":
    run(build, video_classification_loss(5))  # 2 random clips of 4 frames of 3 x 16 x 16
