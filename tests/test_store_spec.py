"""The generator's spec (harness/store/ops_spec.json) is the op registry's, and fixtures are
held to it: every op, case, param, input and output."""

from __future__ import annotations

import json

import pytest

from harness.core.errors import FixtureError
from harness.formats.ops import read_op_fixture, write_op_fixture
from harness.record.write_spec import build_ops_spec, render
from harness.store.paths import DEFAULT_FIXTURES
from harness.store.spec import OPS_SPEC_PATH
from tests.store_helpers import rewrite

COMMITTED = DEFAULT_FIXTURES / "torch-2.13.0" / "linux-x86_64-avx2-mklgeneric-t2.h5"


def test_the_spec_file_is_the_registry_s():
    assert OPS_SPEC_PATH.read_text(encoding="utf-8") == render(build_ops_spec()), (
        "harness/store/ops_spec.json is out of date: python -m harness.record.write_spec"
    )
    assert json.loads(OPS_SPEC_PATH.read_text(encoding="utf-8"))["ops"]


@pytest.fixture
def generator_fixture(tmp_path):
    """A committed recording's exp and softmax, written anew: held to the spec."""
    fx = read_op_fixture(COMMITTED, ops=["exp", "softmax"])
    path = tmp_path / "store" / "torch-2.13.0" / "f.h5"
    write_op_fixture(path, dict(fx.provenance) | {"ops_recorded": ["exp", "softmax"]}, list(fx.cases.values()))
    return path


def _case(tree, op="exp"):
    return next(p for p in tree if p.startswith(f"ops/{op}/") and p.count("/") == 2)


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda t: t[_case(t)].attrs.update(params='{"shape": [7]}'), "params .* are not the generator's"),
        (lambda t: t["ops/exp"].attrs.update(call="torch.exp(y)"), "call is not the generator's"),
        (lambda t: t[_case(t) + "/outputs"].tensors.pop("grad_x"), "lacks output grad_x"),
        (lambda t: t[_case(t) + "/inputs"].tensors.pop("grad_out"), "inputs lack grad_out"),
        (
            lambda t: (
                t["ops/softmax"].groups.pop(),
                [t.pop(p) for p in list(t) if p.startswith("ops/softmax/65x509")],
            ),
            "softmax lacks case",
        ),
        (lambda t: t["/"].attrs.update(platform_id="linux-x86_64-avx2-t9"), "platform_id and its provenance's differ"),
    ],
    ids=["params", "call", "output", "input", "case", "platform"],
)
def test_a_fixture_short_of_the_spec_is_refused(generator_fixture, edit, problem):
    read_op_fixture(generator_fixture, load=False)
    rewrite(generator_fixture, edit)
    with pytest.raises(FixtureError, match=problem):
        read_op_fixture(generator_fixture, load=False)
