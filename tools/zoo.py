"""The zoo: trace each model of zoo/ under several configurations and say what parts the runs.

    python tools/zoo.py [--models gpt2,llama,...|full-size] [--inits library,load]
                        [--comparisons threads,baseline,avx512,threads-4-8,threads-8-16,avx512-8,baseline-8]
                        [--steps N] [--out DIR] [--no-verify] [--audit]

Per model and initialisation (the library's own under ``torch.manual_seed``, or every parameter
loaded from NumPy, ``--load``), each comparison traces a run A and a run B and diffs them with
``--verify-cause``: A at avx2 with 1 thread against B at 2 threads (``threads``), at baseline
(``baseline``) or at avx512 (``avx512``, where this CPU has it); A at avx2 with 4 threads against
8 (``threads-4-8``), 8 against 16 (``threads-8-16``), as a workstation against a server would run;
A at avx2 with 8 threads against B at avx512 with 8 (``avx512-8``) or at baseline with 8
(``baseline-8``), the levels apart at a server's thread count.
The models are the tiny configurations of MODELS by default; ``--models full-size`` names
FULL_SIZE, models at their released sizes (GPT-2 124M, BERT-base, ViT-Base/16, ResNet-50, a Llama
of SmolLM-135M's shape). Prints a markdown table (also written to DIR/zoo.md, with each diff's
JSON report beside it): per comparison the live root cause, its module and call site, the knob,
whether the impl verified it, the divergences that never reach the result and what the walk could
not resolve. With ``--audit``, each trace is also audited (``parity audit``: the first 20 of each op the
impl knows, replayed under the trace's own profile), in a second table (DIR/audit.md, each report
beside it as MODEL-INIT-PLATFORM.audit.json): per trace the ops replayed, exact, other and refused,
the ops refused most and every op the impl got wrong. Exit status 0; 1 where an audit found an op the
impl gave other bits without refusing; 2 on a bad argument.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from harness.core.errors import ParityError, run_reporting_errors
from harness.formats.trace import read_trace
from harness.platform.config import collect_facts, supported_levels
from harness.trace.audit import audit
from harness.trace.audit import report_dict as audit_dict
from harness.trace.cause import diagnose
from harness.trace.impl_ops import packet
from harness.trace.report import report_dict

ZOO = Path(__file__).resolve().parents[1] / "zoo"
MODELS = (
    "gpt2", "llama", "bert", "resnet", "vit", "gru", "lstm", "convnext", "t5", "mistral", "mobilenet_v2", "whisper",
    "wav2vec2", "swin", "gpt_neox", "deberta_v2", "clip", "segformer", "mixtral", "mamba", "efficientnet", "bloom",
    "falcon", "gemma2", "bart", "distilbert", "levit", "gpt_bigcode", "modernbert", "qwen2_moe", "deepseek_v3",
    "gpt_oss", "qwen3", "phi3", "dinov2", "convnextv2", "regnet", "hubert", "albert", "jamba",
    "poolformer", "bit", "videomae", "dpt", "mamba2", "mobilevit", "encodec", "convbert", "mobilenet_v1", "swin2sr",
    "cvt", "upernet", "speech_to_text", "vit_mae", "funnel", "beit", "rwkv", "timesformer", "xlnet", "squeezebert",
    "nystromformer", "longformer", "reformer", "canine", "big_bird", "patchtst", "recurrent_gemma", "pvt_v2",
    "informer", "wav2vec2_conformer", "swinv2", "hiera", "sew", "perceiver", "focalnet",
    "fnet", "cohere", "gptj", "mpt", "stablelm", "esm", "dac", "univnet", "mimi", "wavlm", "autoformer", "patchtsmixer",
    "prophetnet", "dbrx", "olmoe", "falcon_mamba", "zamba2", "bamba",
    "deformable_detr", "superpoint", "vitdet", "yolos", "glpn", "vitmatte",
    "nemotron", "persimmon", "lfm2", "minimax", "gemma3",
    "sam", "depth_anything", "swiftformer", "clap", "fastspeech2_conformer",
    "xlstm_lm", "qwen3_next", "vits", "switch_transformers", "roformer", "siglip",
    "gemma3n_text", "ibert", "speecht5", "timesfm", "diffllama",
    "groupvit", "chameleon_vqgan", "superglue", "mobilevitv2", "rt_detr_v2",
    "kimi_linear", "bitnet", "doge", "parakeet", "blt",
    "d_fine", "mask2former", "zoedepth", "dab_detr", "efficientloftr",
    "jetmoe", "hrm_text", "musicgen", "depth_pro",
    "deberta", "mpnet", "tapas", "yoso",
    "decision_transformer", "time_series_transformer", "nemotron_h", "granitemoehybrid",
    "vitpose", "textnet", "lightglue", "sam_hq",
    "vivit", "hgnet_v2", "gpt_neo", "olmo2", "mobilebert", "opt",
    "pp_lcnet", "phi", "pvt", "data2vec_vision", "layoutlm", "imagegpt",
    "olmo", "deit", "electra", "xglm", "biogpt", "unispeech",
    "ctrl", "marian", "audio_spectrogram_transformer", "sew_d", "xlm", "rembert", "dinov2_with_registers",
    "conditional_detr", "deepseek_v2", "llama4", "cohere2", "falcon_h1", "granitemoe", "layoutlmv3",
    "led", "luke", "t5gemma", "lfm2_moe", "zamba", "moonshine", "timesfm2_5", "vilt", "longt5", "pegasus_x",
    "nllb_moe", "modernbert_decoder", "owlvit",
    "phimoe", "longcat_flash", "seggpt", "clipseg", "vjepa2", "wav2vec2_bert", "qwen2_vl", "neucodec",
    "slanet", "x_clip", "data2vec_audio", "lxmert", "siglip2", "tvp", "grounding_dino",
    "apertus", "cpmant", "bros", "splinter", "markuplm", "nanochat",
    "emu3_vqgan", "videoprism", "vibevoice_acoustic_tokenizer", "florence2", "uvdoc",
    "afmoe", "ernie4_5_moe", "olmo_hybrid", "lilt", "esmc",
    "pp_ocrv5_mobile_det", "mgp_str", "sam2",
    "maskformer", "pix2struct",
    "deepseek_v32", "roc_bert", "minimax_m2", "nomic_bert",
    "pi0", "kosmos2", "clvp", "dia", "xcodec",
    "csm", "bark", "granite_speech",
)  # fmt: skip
# models at their released sizes: some of the families above as they are trained
FULL_SIZE = ("gpt2_124m", "bert_base", "vit_base", "resnet50", "resnet50_channels_last", "llama_135m")
INITS = ("library", "load")
# comparison: (A's platform, B's platform)
COMPARISONS = {
    "threads": ("linux-x86_64-avx2-t1", "linux-x86_64-avx2-t2"),
    "baseline": ("linux-x86_64-avx2-t1", "linux-x86_64-baseline-t1"),
    "avx512": ("linux-x86_64-avx2-t1", "linux-x86_64-avx512-t1"),
    "threads-4-8": ("linux-x86_64-avx2-t4", "linux-x86_64-avx2-t8"),
    "threads-8-16": ("linux-x86_64-avx2-t8", "linux-x86_64-avx2-t16"),
    "avx512-8": ("linux-x86_64-avx2-t8", "linux-x86_64-avx512-t8"),
    "baseline-8": ("linux-x86_64-avx2-t8", "linux-x86_64-baseline-t8"),
}
DEFAULT_COMPARISONS = ("threads", "baseline", "avx512")


def _choices(text: str, allowed: tuple[str, ...], what: str) -> list[str]:
    chosen = [x for x in text.split(",") if x]
    wrong = [x for x in chosen if x not in allowed]
    if wrong or not chosen:
        raise ParityError(f"--{what}: {', '.join(wrong) or 'none given'}; choose from {', '.join(allowed)}")
    return chosen


def trace(model: str, init: str, platform: str, steps: int, out: Path) -> Path:
    """Trace ``zoo/MODEL.py`` under ``platform``; the trace's path."""
    path = out / f"{model}-{init}-{platform}.h5"
    program = [str(ZOO / f"{model}.py"), "--steps", str(steps), *(["--load"] if init == "load" else [])]
    cmd = [sys.executable, "-m", "harness.cli", "trace", "--platform", platform, "--out", str(path), "--", *program]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ParityError(f"tracing {model} ({init}) at {platform} failed: {done.stderr.strip().splitlines()[-1:]}")
    return path


def compare(a: Path, b: Path, target: str, verify_cause: bool) -> dict:
    """``parity diff A B --verify-cause`` as a JSON report."""
    return report_dict(diagnose(read_trace(a), read_trace(b), target, verify_cause))


def audited(path: Path) -> dict:
    """``parity audit`` of one trace as a JSON report."""
    return audit_dict(audit(read_trace(path)))


def audit_row(model: str, init: str, platform: str, data: dict) -> str:
    """One line of the audit table."""
    s = data["summary"]
    per_op: dict[str, int] = {}
    for r in data["refused"]:
        per_op[packet(r["op"])] = per_op.get(packet(r["op"]), 0) + r["count"]
    most = sorted(per_op.items(), key=lambda kv: -kv[1])
    refused = ", ".join(f"`{op}` {n}" for op, n in most[:3]) + (f" (+{len(most) - 3} more)" if len(most) > 3 else "")
    wrong = ", ".join(f"**`{packet(o['op'])}` op {o['index']}**" for o in data["other"]) or "none"
    cells = (model, init, platform, s["chosen"], s["exact"], s["other"], s["refused"], refused, wrong)
    return "| " + " | ".join(map(str, cells)) + " |"


def row(model: str, init: str, comparison: str, data: dict) -> str:
    """One line of the table."""
    if data["bit_identical"]:
        return f"| {model} | {init} | {comparison} | bit-identical | | | | |"
    reach, root = data["reach"], data["root_cause"]
    flows = [d for d in reach["dead"] if d.get("kind") == "data-flow"]
    read = f"{len(flows)} of them read other tensors, knob: {flows[0]['knob']}; " if flows else ""
    dead = f"{reach['dead_total']}" + (
        f" ({read}first: `{packet(reach['dead'][0]['op'])}`, {reach['dead'][0]['died']})" if reach["dead"] else ""
    )
    if root is None:
        why = reach["unresolved"][0] if reach["unresolved"] else "no difference reaches the result"
        return f"| {model} | {init} | {comparison} | none: {why} | | | | {dead} |"
    more = len(reach["root_causes"]) - 1
    name = f"`{packet(root['op'])}`" + (f" (+{more} more)" if more else "")
    where = f"{root['module'] or '-'} ({root['phase']}, step {root['step']}) at {Path(root['site']).name}"
    verified = "**verified**" if root["verified"] else "no"
    if root.get("kind") in ("data-flow", "host-data"):
        verified = f"{root['kind'].replace('-', ' ')}: shown by the trace"
    if more:
        roots = reach["root_causes"]
        proven = sum(r["verified"] for r in roots)
        untried = sum(r["verification"].startswith("not attempted") for r in roots)
        unexplained = sorted({f"`{packet(r['op'])}`" for r in roots if r["verification"].startswith("unexplained")})
        shown = sum(r.get("kind", "kernel") != "kernel" for r in roots)  # data flow, host data
        notes = [f"; not: {', '.join(unexplained)}"] if unexplained else []
        notes += [f"; {untried} not tried"] if untried else []
        notes += [f"; {shown} shown by the trace"] if shown else []
        verified += f" ({proven} of {more + 1} roots{''.join(notes)})"
    if reach["unresolved"]:  # inputs the walk could not follow: never left out of the row
        n = len(reach["unresolved"])
        verified += f"; {n} input{'s' * (n > 1)} unresolved (first: {reach['unresolved'][0]})"
    return f"| {model} | {init} | {comparison} | {name} | {where} | {root['knob']} | {verified} | {dead} |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/zoo.py", description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--inits", default=",".join(INITS))
    parser.add_argument("--comparisons", default=",".join(DEFAULT_COMPARISONS))
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--target", default="", help="as parity diff --target (default: loss and optimizer state)")
    parser.add_argument("--out", type=Path, default=Path("build/zoo"))
    parser.add_argument("--no-verify", action="store_true", help="name the knobs without re-running for proof")
    parser.add_argument("--audit", action="store_true", help="audit each trace too (parity audit), in DIR/audit.md")
    args = parser.parse_args(argv)

    def body() -> int:
        models = FULL_SIZE if args.models == "full-size" else _choices(args.models, MODELS + FULL_SIZE, "models")
        inits = _choices(args.inits, INITS, "inits")
        comparisons = _choices(args.comparisons, tuple(COMPARISONS), "comparisons")
        if args.steps < 1:
            raise ParityError(f"--steps {args.steps}: at least 1")
        levels = {lvl.name for lvl in supported_levels(collect_facts())}
        args.out.mkdir(parents=True, exist_ok=True)
        lines = [
            "| model | init | comparison | live root cause | module, phase, call site | knob | verified | dead |",
            "|---|---|---|---|---|---|---|---|",
        ]
        audits = [
            "| model | init | platform | replayed | exact | other | refused | refused most | other bits |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        wrong = 0
        for model in models:
            for init in inits:
                traced: dict[str, Path] = {}  # platform -> its trace, each traced once
                for comparison in comparisons:
                    platforms = COMPARISONS[comparison]
                    missing = [lvl for lvl in dict.fromkeys(p.split("-")[2] for p in platforms) if lvl not in levels]
                    if missing:
                        lines.append(
                            f"| {model} | {init} | {comparison} | not run: this CPU has no {missing[0]} | | | | |"
                        )
                        continue
                    for platform in platforms:
                        if platform not in traced:
                            traced[platform] = trace(model, init, platform, args.steps, args.out)
                    a, b = (traced[p] for p in platforms)
                    data = compare(a, b, args.target, not args.no_verify)
                    (args.out / f"{model}-{init}-{comparison}.json").write_text(json.dumps(data, indent=1) + "\n")
                    lines.append(row(model, init, comparison, data))
                    print(lines[-1], flush=True)
                for platform, path in traced.items() if args.audit else ():
                    report = audited(path)
                    (args.out / f"{model}-{init}-{platform}.audit.json").write_text(json.dumps(report, indent=1) + "\n")
                    audits.append(audit_row(model, init, platform, report))
                    wrong += report["summary"]["other"]
                    print(audits[-1], flush=True)
        table = "\n".join(lines) + "\n"
        (args.out / "zoo.md").write_text(table)
        print(table, end="")
        if args.audit:
            (args.out / "audit.md").write_text("\n".join(audits) + "\n")
            print("\n" + "\n".join(audits))
        return 1 if wrong else 0

    return run_reporting_errors(body)


if __name__ == "__main__":
    sys.exit(main())
