"""DAB-DETR (Hugging Face transformers, tiny configuration) over a ResNet backbone of the library (frozen
batch norm): PReLU activations in the encoder and decoder feed-forward layers (a learned slope),
dynamic anchor boxes as the decoder's queries: each layer's query position is the sine embedding of its
anchor (separate temperatures for height and width), modulated by the ratio of a predicted to the
anchor's width and height, and the anchors refined layer by layer through ``inverse_sigmoid`` (clamped
``log(x / (1 - x))``), a box MLP and ``sigmoid``. The detection loss needs the Hungarian matcher (SciPy,
not installed): the loss here is of the logits and boxes."""

from common import detection_loss, run
from transformers import DabDetrConfig, DabDetrForObjectDetection, ResNetConfig

QUERIES, LABELS = 8, 3


def build() -> DabDetrForObjectDetection:
    backbone = ResNetConfig(
        embedding_size=8, hidden_sizes=[8, 16, 16, 32], depths=[1, 1, 1, 1], layer_type="basic",
        out_features=["stage4"],
    )  # fmt: skip
    config = DabDetrConfig(
        backbone_config=backbone, num_queries=QUERIES, hidden_size=32, encoder_layers=1, decoder_layers=2,
        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, dropout=0.0,
        num_labels=LABELS, activation_function="prelu",
    )  # fmt: skip
    return DabDetrForObjectDetection(config)


if __name__ == "__main__":
    run(build, detection_loss(LABELS, QUERIES))
