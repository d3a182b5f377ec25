"""I-BERT (Hugging Face transformers, tiny configuration, ``quant_mode``): integer-only arithmetic carried in
float32, quantised linear layers and embeddings (symmetric per-channel scales from `min`/`max`, `round` and
`clamp`, straight-through estimators for the gradients), activations quantised with a running min/max, and
integer polynomial approximations of GELU (`sign`, `abs`, `floor`), softmax (`floor`, a shift by `pow` of 2) and
layer norm (an integer square root by Newton's iteration, `floor`), requantised through a fixed-point
multiplier (NumPy's `frexp`), a sequence classifier."""

from common import run, sequence_classification_loss
from transformers import IBertConfig, IBertForSequenceClassification

VOCAB = 128


def build() -> IBertForSequenceClassification:
    config = IBertConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=40, num_labels=3, quant_mode=True,
    )  # fmt: skip
    return IBertForSequenceClassification(config)


loss_of = sequence_classification_loss(VOCAB)


if __name__ == "__main__":
    run(build, loss_of)
