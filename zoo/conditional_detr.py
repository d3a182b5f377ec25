"""Conditional DETR (Hugging Face transformers, tiny configuration) over a ResNet backbone of the
library (frozen batch norm): each decoder layer's cross-attention query concatenates its content with
a spatial query (the sine embedding of a reference point, scaled by a learned transform of the content)
per head, sigmoid scores. The loss is computed from the outputs (no Hungarian matching: SciPy is not
installed)."""

from common import detection_loss, run
from transformers import ConditionalDetrConfig, ConditionalDetrForObjectDetection, ResNetConfig

QUERIES, LABELS = 8, 3


def build() -> ConditionalDetrForObjectDetection:
    backbone = ResNetConfig(
        embedding_size=8, hidden_sizes=[8, 16, 16, 32], depths=[1, 1, 1, 1], layer_type="basic",
        out_features=["stage4"],
    )  # fmt: skip
    config = ConditionalDetrConfig(
        backbone_config=backbone, use_timm_backbone=False, num_queries=QUERIES, d_model=32, encoder_layers=1,
        decoder_layers=2, encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32,
        decoder_ffn_dim=32, dropout=0.0, num_labels=LABELS,
    )  # fmt: skip
    return ConditionalDetrForObjectDetection(config)


if __name__ == "__main__":
    run(build, detection_loss(LABELS, QUERIES))
