"""BitNet b1.58 (Hugging Face transformers, tiny configuration) in quantisation-aware training: every
linear layer of the decoder is the library's `AutoBitLinear` with online quantisation, ternary weights
(each weight times the reciprocal of its tensor's mean absolute value, rounded, clamped to -1..1 and
divided back) and 8-bit activations (scaled per token by 127 over the row's absolute maximum, rounded,
clamped to -128..127 and divided back), both passed straight through in the backward pass; a squared
ReLU MLP and RMS norms before the attention's and the MLP's output projections. The library compiles
its two quantisers with `torch.compile`; the zoo runs them eagerly (`torch._dynamo.config.disable`),
so that every op they run is ATen's."""

import torch
import torch._dynamo
from common import causal_lm_loss, run
from transformers import BitNetConfig, BitNetForCausalLM
from transformers.integrations.bitnet import AutoBitLinear

VOCAB = 128


def build() -> BitNetForCausalLM:
    torch._dynamo.config.disable = True
    config = BitNetConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=64, bos_token_id=1, eos_token_id=2,
    )  # fmt: skip
    model = BitNetForCausalLM(config)
    for name, module in list(model.model.named_modules()):
        if isinstance(module, torch.nn.Linear):
            quantised = AutoBitLinear(module.in_features, module.out_features, bias=module.bias is not None,
                                      online_quant=True)  # fmt: skip
            with torch.no_grad():
                quantised.weight.copy_(module.weight)
            model.model.set_submodule(name, quantised)
    return model


loss_of = causal_lm_loss(VOCAB)

if __name__ == "__main__":
    run(build, loss_of)
