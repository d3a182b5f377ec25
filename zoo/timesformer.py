"""TimeSformer (Hugging Face transformers, tiny configuration): divided space-time attention over a clip's
patches, a convolutional patch embedding per frame."""

from common import run, video_classification_loss
from transformers import TimesformerConfig, TimesformerForVideoClassification


def build() -> TimesformerForVideoClassification:
    config = TimesformerConfig(
        image_size=16, patch_size=4, num_frames=4, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=64, num_labels=5,
    )  # fmt: skip
    return TimesformerForVideoClassification(config)


if __name__ == "__main__":
    run(build, video_classification_loss(5))  # 2 random clips of 4 frames of 3 x 16 x 16
