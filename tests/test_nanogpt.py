"""The nanoGPT recorder: model, data, schedule, recording fidelity, fixture round trip."""

from __future__ import annotations

import hashlib
import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from harness.core.digest import ALGORITHMS, LEGACY, digest
from harness.formats.nanogpt import DIGEST_KINDS, hex_digest, read_nanogpt_fixture, write_nanogpt_fixture
from harness.record import nanogpt_child as rn
from harness.record.nanogpt_model import GPT, GPTConfig
from harness.record.nanogpt_train import CONFIGS, batches_for, get_lr, train
from harness.workloads.nanogpt_data import VOCAB, decode, encode, make_batches, make_text

TINY = CONFIGS["tiny"]
SHORT = replace(TINY, steps=4, full_steps=(1, 4))


def test_vocab_is_shakespeare_char():
    assert len(VOCAB) == 65
    assert VOCAB[:13] == "\n !$&',-.3:;?"
    assert VOCAB[13:39] == "ABCDEFGHIJKLMNOPQRSTUVWXYZ" and VOCAB[39:] == "abcdefghijklmnopqrstuvwxyz"


def test_text_is_deterministic_and_uses_every_token():
    text = make_text(50_000)
    assert text == make_text(50_000)
    ids = encode(text)
    assert decode(ids[:200]) == text[:200]
    assert set(np.unique(ids)) == set(range(65))


def test_batches_are_shifted_windows():
    tokens = encode(make_text(20_000))
    batches = make_batches(tokens, 3, 4, 32, seed=5)
    assert batches[0][0].dtype == np.int64 and batches[0][0].shape == (4, 32)
    for x, y in batches:
        assert np.array_equal(x[:, 1:], y[:, :-1])
    again = make_batches(tokens, 3, 4, 32, seed=5)
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(batches, again, strict=True))


def test_learning_rate_schedule_is_nanogpts():
    assert get_lr(0, TINY) == 1e-3 * 1 / 11
    assert get_lr(9, TINY) == 1e-3 * 10 / 11
    assert get_lr(10, TINY) == 1e-3  # cosine at ratio 0
    mid = (10 + 50) // 2
    assert get_lr(mid, TINY) == pytest.approx(1e-4 + 0.5 * (1 + math.cos(math.pi * 0.5)) * (1e-3 - 1e-4), rel=0)
    assert get_lr(50, TINY) == pytest.approx(1e-4, rel=1e-15)
    assert get_lr(51, TINY) == 1e-4
    sc = CONFIGS["shakespeare-char"]
    assert [get_lr(i, sc) for i in (0, 49)] == [1e-3 / 101, 1e-3 * 50 / 101]  # all 50 steps warm up


def test_model_follows_nanogpt_init_and_tying():
    torch.manual_seed(1337)
    model = GPT(GPTConfig(**TINY.model_args()))
    assert model.transformer.wte.weight is model.lm_head.weight
    names = [n for n, _ in model.named_parameters()]
    assert "lm_head.weight" not in names and names[0] == "transformer.wte.weight"
    for name, p in model.named_parameters():
        if name.endswith("bias"):
            assert torch.count_nonzero(p) == 0, name
        if ".ln_" in name and name.endswith("weight"):
            assert torch.all(p == 1), name
    proj = torch.cat([p.reshape(-1) for n, p in model.named_parameters() if n.endswith("c_proj.weight")])
    fc = model.transformer.h[0].mlp.c_fc.weight
    assert proj.std().item() == pytest.approx(0.02 / math.sqrt(2 * TINY.n_layer), rel=0.05)
    assert fc.std().item() == pytest.approx(0.02, rel=0.05)
    per_block = 2 * 64 + (64 * 192 + 192) + (64 * 64 + 64) + 2 * 64 + (64 * 256 + 256) + (256 * 64 + 64)
    assert sum(p.numel() for p in model.parameters()) == 65 * 64 + 32 * 64 + 2 * per_block + 2 * 64


def _final_values(model: torch.nn.Module, algorithm: str) -> list[str]:
    arrays = [p.detach().numpy() for p in model.parameters()]
    if algorithm == LEGACY:  # SHA-256 as hashlib gives it
        return [hashlib.sha256(a.tobytes()).hexdigest() for a in arrays]
    return [digest(a, algorithm).hex() for a in arrays]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_recording_does_not_change_the_training(algorithm):
    batches = batches_for(SHORT)
    plain = _final_values(train(SHORT, batches), algorithm)
    recorder = rn.Recorder({1, 4}, batches, algorithm)
    recorded = _final_values(train(SHORT, batches, recorder), algorithm)
    assert recorded == plain
    value = DIGEST_KINDS.index("value")
    assert [hex_digest(d) for d in recorder.record.steps[-1].digests[:, value]] == plain
    assert recorder.record.run().digest == algorithm


class _EveryOp(rn.Recorder):
    """Watches the whole forward pass, not only the dropout calls."""

    def forward_context(self):
        self._masks.take()
        return self._masks


def test_watching_only_dropout_calls_sees_every_dropout_draw():
    batches = batches_for(SHORT)
    targeted, everything = rn.Recorder(set(), batches), _EveryOp(set(), batches)
    train(SHORT, batches, targeted)
    train(SHORT, batches, everything)
    for a, b in zip(targeted.record.steps, everything.record.steps, strict=True):
        assert len(a.dropout_mask_digests) == 1 + 3 * TINY.n_layer  # embedding, then 3 per block
        assert np.array_equal(a.dropout_mask_digests, b.dropout_mask_digests)
        assert a.same_bits(b)


def test_fixture_round_trip_and_digest_only_init(tmp_path):
    run = rn.record_run(SHORT, {1, 4}, rn.ModelSource(), "test", quiet=True)
    prov = {"torch_version": "0", "platform_id": "linux-x86_64-avx2-t1"}
    for full_init in (True, False):
        path = tmp_path / f"f{full_init}.h5"
        write_nanogpt_fixture(path, prov, SHORT.as_dict(), run, deterministic=True, full_init=full_init)
        fx = read_nanogpt_fixture(path)
        assert fx.run.param_names == run.param_names
        assert bool(fx.run.init) is full_init
        assert np.array_equal(fx.run.init_digests, run.init_digests)
        assert [r.step for r in fx.run.steps if r.full] == [1, 4]
        for a, b in zip(run.steps, fx.run.steps, strict=True):
            assert a.same_bits(b), a.step
            for kind, tensors in a.full.items():
                for name, arr in tensors.items():
                    assert arr.tobytes() == b.full[kind][name].tobytes(), (a.step, kind, name)
        # a full tensor's digest is the one in the digest table
        step4 = fx.run.steps[3]
        i = fx.run.param_names.index("transformer.wte.weight")
        want = digest(step4.full["exp_avg"]["transformer.wte.weight"], fx.run.digest)
        assert bytes(step4.digests[i, DIGEST_KINDS.index("exp_avg")]) == want


def test_first_difference_names_the_step():
    run = rn.record_run(SHORT, set(), rn.ModelSource(), "test", quiet=True)
    other = rn.record_run(SHORT, set(), rn.ModelSource(), "test", quiet=True)
    assert rn.first_difference(run, other) == 0
    other.steps[2].sums = other.steps[2].sums.copy()
    other.steps[2].digests = other.steps[2].digests.copy()
    other.steps[2].digests[5, 1, 0] ^= 1
    assert rn.first_difference(run, other) == 3


@pytest.mark.parametrize(
    ("text", "expected"), [(None, {1, 50}), ("none", set()), ("all", set(range(1, 51))), ("3,7", {3, 7})]
)
def test_full_steps_option(text, expected):
    assert rn.parse_full_steps(text, TINY) == expected


@pytest.mark.parametrize("text", ["0", "51", "x", "1,,2"])
def test_full_steps_option_rejects(text):
    with pytest.raises(Exception, match=r"--full-steps takes step numbers 1\.\.50"):
        rn.parse_full_steps(text, TINY)
