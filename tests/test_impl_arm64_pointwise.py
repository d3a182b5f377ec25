"""mish and its backward, lerp (a number or a tensor weight), addcmul, addcdiv, sinc, atan2, exponential_, prelu's
kernel and its backward, smooth_l1_loss and huber_loss, _ctc_loss and its backward, reflection and replication
padding's backwards, unfold_backward and nll_loss2d and its backward under the Linux arm64 profiles, against torch
2.13.0's aarch64 wheel run under QEMU (``python tools/emulate_arm64.py run --cores C --threads 4 --
tests/arm64_pointwise_cases.py``, emulated Neoverse N1, V2 and V1; 1, 2 and 4 threads set with
torch.set_num_threads in one process): the SHA-256 of torch's output bits over each op's cases that the impl
does not refuse, as recorded there, and which cases it refuses. Torch-free.

What the recordings pin: SLEEF's advsimd/SVE expf, log1pf and tanhf in mish's vector lanes (ATen's own FEXPA
tanh in V1's SVE256 object) and aarch64 glibc's expf, contracted log1pf and tanhf in its tails, the backward's
contractions (NEON-typed objects and every tail fused, V1's vector body not); lerp's, addcmul's and addcdiv's
fused forms and FMUL/FADD NaNs per object; aarch64 glibc's sinf (its lround reduction) and contracted atanf;
FMUL's NaN in prelu; the default NaN +qNaN of sinc's infinities; the same exponential_ draws, sums and cascades
as x86 (padding's and unfold's backwards, CTC, smooth_l1's reductions); nll_loss2d's weighted loss - x*w fused;
the NaNs of padding's and unfold's backwards where one NaN alone can come out (nans.summed_nans) and CTC's NaNs made
of infinities, x86's with the sign flipped (nans.made_nans).
"""

from __future__ import annotations

import pytest

from tests import arm64_pointwise_cases as cases
from tests.arm64_sampling_cases import recorded, recording_grid, replayed_case_file

# (op, profile) -> the digest torch gave on the core whose profile it is, at 1, 2 and 4 threads alike
# (or one per thread count), over the cases the impl does not refuse
DIGESTS: dict[tuple[str, str], str | tuple[str, ...]] = {
    ('mish', 'arm64-neon'): (
        '9efc50c63765c0de2c1bb3aa9fb85a00263cf22aedd605acb1c322b52003dfaf',
        'af3e2ddf28eb22839d3d1ab4ca49242b7fca87a18d076facde89e34149499624',
        '9efc50c63765c0de2c1bb3aa9fb85a00263cf22aedd605acb1c322b52003dfaf',
    ),
    ('mish_backward', 'arm64-neon'): (
        'c98c5074985154dbd43ef7d7906447f84a120c77fc0f8846fce6abcb2b7bb35c',
        'ff768761a8278efc574eb5d3425bbb4ecea31abbfc829405ac4d73e36788806d',
        'c98c5074985154dbd43ef7d7906447f84a120c77fc0f8846fce6abcb2b7bb35c',
    ),
    ('lerp', 'arm64-neon'): '59361ab80f5224b48f1dc80e307dda7cb343c15d1f566a61ef21587c505a13bb',
    ('lerp_tensor', 'arm64-neon'): '05d10cc817d33a810ea18636080e3f3250980b9f6fee1040e450a2a489578094',
    ('addcmul', 'arm64-neon'): 'beb44384fcd7c323b8340e4dd75246da44062c46e63096437b5a249047793fcd',
    ('addcdiv', 'arm64-neon'): 'f2dec4c3582cd927bbf953627492823b6e180100e471c008a58f9da3bd1b0821',
    ('sinc', 'arm64-neon'): '3f226d33f725bfa212f679dc392b83f3f82ffe80826c4de671cb24ec5ddbeaeb',
    ('atan2', 'arm64-neon'): '97743aac2adf887887a976182c8de19b90f97fe4933445c995c815ce64bab137',
    ('exponential', 'arm64-neon'): '1b2bec13f1c4a763c178835cad8262a0e33e709ac618b9c2ad0e3b11228d0483',
    ('prelu', 'arm64-neon'): 'f1e52f9d8d757f5228c00459d6790c8546f26876f1d5bd20ef3ba2825c9f3452',
    ('prelu_backward', 'arm64-neon'): '5a28986c98cbc7d17c3af8a5689fe1276f7af170b35c3cd884a6a725553f47a1',
    ('smooth_l1_loss', 'arm64-neon'): (
        'd7ba85e42917a2dc20e7ecd8863ad31c2325b8fe0957456b352fe38d72ee878b',
        'f511283d3fdccb5a491efffdb57bcdacc8e5942a19612fe2cb9d564e4faaae22',
        '202bd1ab92f1badf5c074c66a792cf1b69aa845348db3fb4710689299b6590c1',
    ),
    ('huber_loss', 'arm64-neon'): '728b0ade0d50b7ec1fda32c73daaf6098fc72529903010b17f679e0122a79b66',
    ('ctc_loss', 'arm64-neon'): '6d3cf912ef8cbee79324065eef035a78dae051700c879691121ab4df9e08c0e6',
    ('ctc_loss_backward', 'arm64-neon'): '9a713146f900a6bd183e2dd8c1c1dda3a9dd7e6015dc026a6009cb9e19f51e26',
    ('padding_backward', 'arm64-neon'): 'e3360a57a661a547694cd0cc9e2ce066193edfe42f815ed671191dc9d1b6d4ea',
    ('unfold_backward', 'arm64-neon'): '86bf3f8f8073349f60b59b5b717745c69dce48f94275233109d3c7c655d9b3f0',
    ('nll_loss2d', 'arm64-neon'): 'd99ad54aec4bf0bae7d917e65b1846e83d2df20e2151fe1caba902dda625ada5',
    ('nll_loss2d_backward', 'arm64-neon'): '3c5a3dd5daacd568678974becba9d3a45d37817187f211e169651f5db439ceae',
    ('cdist', 'arm64-neon'): 'acbb1fe2a94365bd2b8f5e8d2d9c32810e447d1b1c2c9d2d3902c37c941778ef',
    ('cdist_backward', 'arm64-neon'): 'cea734e1602496313a9b7934173aea1edb01ae032090f0900faddb3ac3cf8e06',
    ('mish', 'arm64-sve128'): (
        '9efc50c63765c0de2c1bb3aa9fb85a00263cf22aedd605acb1c322b52003dfaf',
        'af3e2ddf28eb22839d3d1ab4ca49242b7fca87a18d076facde89e34149499624',
        '9efc50c63765c0de2c1bb3aa9fb85a00263cf22aedd605acb1c322b52003dfaf',
    ),
    ('mish_backward', 'arm64-sve128'): (
        'c98c5074985154dbd43ef7d7906447f84a120c77fc0f8846fce6abcb2b7bb35c',
        'ff768761a8278efc574eb5d3425bbb4ecea31abbfc829405ac4d73e36788806d',
        'c98c5074985154dbd43ef7d7906447f84a120c77fc0f8846fce6abcb2b7bb35c',
    ),
    ('lerp', 'arm64-sve128'): 'c810709a82571d8979de1d3647dfb23baf5ef31bed42ec7b28632acf7685ccf4',
    ('lerp_tensor', 'arm64-sve128'): '05d10cc817d33a810ea18636080e3f3250980b9f6fee1040e450a2a489578094',
    ('addcmul', 'arm64-sve128'): 'beb44384fcd7c323b8340e4dd75246da44062c46e63096437b5a249047793fcd',
    ('addcdiv', 'arm64-sve128'): 'f2dec4c3582cd927bbf953627492823b6e180100e471c008a58f9da3bd1b0821',
    ('sinc', 'arm64-sve128'): '3f226d33f725bfa212f679dc392b83f3f82ffe80826c4de671cb24ec5ddbeaeb',
    ('atan2', 'arm64-sve128'): '97743aac2adf887887a976182c8de19b90f97fe4933445c995c815ce64bab137',
    ('exponential', 'arm64-sve128'): '1b2bec13f1c4a763c178835cad8262a0e33e709ac618b9c2ad0e3b11228d0483',
    ('prelu', 'arm64-sve128'): 'f1e52f9d8d757f5228c00459d6790c8546f26876f1d5bd20ef3ba2825c9f3452',
    ('prelu_backward', 'arm64-sve128'): '5a28986c98cbc7d17c3af8a5689fe1276f7af170b35c3cd884a6a725553f47a1',
    ('smooth_l1_loss', 'arm64-sve128'): (
        'd7ba85e42917a2dc20e7ecd8863ad31c2325b8fe0957456b352fe38d72ee878b',
        'f511283d3fdccb5a491efffdb57bcdacc8e5942a19612fe2cb9d564e4faaae22',
        '202bd1ab92f1badf5c074c66a792cf1b69aa845348db3fb4710689299b6590c1',
    ),
    ('huber_loss', 'arm64-sve128'): '728b0ade0d50b7ec1fda32c73daaf6098fc72529903010b17f679e0122a79b66',
    ('ctc_loss', 'arm64-sve128'): '6d3cf912ef8cbee79324065eef035a78dae051700c879691121ab4df9e08c0e6',
    ('ctc_loss_backward', 'arm64-sve128'): '9a713146f900a6bd183e2dd8c1c1dda3a9dd7e6015dc026a6009cb9e19f51e26',
    ('padding_backward', 'arm64-sve128'): 'e3360a57a661a547694cd0cc9e2ce066193edfe42f815ed671191dc9d1b6d4ea',
    ('unfold_backward', 'arm64-sve128'): '86bf3f8f8073349f60b59b5b717745c69dce48f94275233109d3c7c655d9b3f0',
    ('nll_loss2d', 'arm64-sve128'): 'd99ad54aec4bf0bae7d917e65b1846e83d2df20e2151fe1caba902dda625ada5',
    ('nll_loss2d_backward', 'arm64-sve128'): '3c5a3dd5daacd568678974becba9d3a45d37817187f211e169651f5db439ceae',
    ('cdist', 'arm64-sve128'): 'abdbe0a898298a2acd074fd4f583ce55faab668abe25ae9ccc684b447692c2af',
    ('cdist_backward', 'arm64-sve128'): 'a012339ed34c9db78ded7b3845c55b5af18a5a83d4f8ad06e12332d8c054bb42',
    ('mish', 'arm64-sve256'): (
        'f01169d59519e51ac660d4bb3a7c52c45211025bd95304a1810d1cfe5df5ef07',
        '609db39ad6b604c48243e06076713fd80d6367fe5b0f903ec50736a3ec4bb78e',
        'b8be301410111cd03fb8c82788e2f095a7a2a54bcdef1a24258838fd54c38d11',
    ),
    ('mish_backward', 'arm64-sve256'): (
        '5529f81a0ed6254fdec2b9b4fcf2c70dcf299074cfa81988a344391274935d39',
        '0e33facb18833c76c32d5c22f027fc58a3463fe8cf37b6bac5cb808c26b10110',
        '41f5a6185a6e45a1fedd5bc7579e106f2402f38ccd2fbdc2391fa0285ea8e78d',
    ),
    ('lerp', 'arm64-sve256'): '59361ab80f5224b48f1dc80e307dda7cb343c15d1f566a61ef21587c505a13bb',
    ('lerp_tensor', 'arm64-sve256'): '14a8e91bfa5699bd42bbd91f08c69bf0668b967ec3723aa0796bec5a4d00a8ed',
    ('addcmul', 'arm64-sve256'): (
        'cf6227d7c1a5c86cfb8e26954aa5e69c9c6518b824e62df592b1d83c8a9c57ac',
        '1b0cc93f58d3a84a2f7158b651739d6559415469e47c55fba148f775d44c70cf',
        'c77f4b3d04630aed79ff29395861a0c4c4ecffff3fb7f99a6c39888765914779',
    ),
    ('addcdiv', 'arm64-sve256'): 'f2dec4c3582cd927bbf953627492823b6e180100e471c008a58f9da3bd1b0821',
    ('sinc', 'arm64-sve256'): '3f226d33f725bfa212f679dc392b83f3f82ffe80826c4de671cb24ec5ddbeaeb',
    ('atan2', 'arm64-sve256'): (
        'ef7226f1212ed7562f4c7517c5b93c7d14a045c0a64ca1a1ab9b4d56339b6784',
        'b2f348766c8c8c2597edbde0dbb8dc6a9144fac79fc05aba7209ffca69c7a76a',
        'ef7226f1212ed7562f4c7517c5b93c7d14a045c0a64ca1a1ab9b4d56339b6784',
    ),
    ('exponential', 'arm64-sve256'): '1b2bec13f1c4a763c178835cad8262a0e33e709ac618b9c2ad0e3b11228d0483',
    ('prelu', 'arm64-sve256'): 'f1e52f9d8d757f5228c00459d6790c8546f26876f1d5bd20ef3ba2825c9f3452',
    ('prelu_backward', 'arm64-sve256'): '5a28986c98cbc7d17c3af8a5689fe1276f7af170b35c3cd884a6a725553f47a1',
    ('smooth_l1_loss', 'arm64-sve256'): (
        '83ca9183a2c99136f2e88b339b2347c961afd0f9654469ddb5198ed6bb28f2a4',
        '97176ef9e79912aa952acf04c0fd2a77b9c8ca16fb56b30493d828ab7309da59',
        'aefa4d1376043b77b3184986650002f15fd914bd1e330c50d4e514bd221d2007',
    ),
    ('huber_loss', 'arm64-sve256'): '57b5b1b83d9b4f5844c1f2afffd3ad64187ae059f17211b90f5cc52444f481f5',
    ('ctc_loss', 'arm64-sve256'): '6d3cf912ef8cbee79324065eef035a78dae051700c879691121ab4df9e08c0e6',
    ('ctc_loss_backward', 'arm64-sve256'): '9a713146f900a6bd183e2dd8c1c1dda3a9dd7e6015dc026a6009cb9e19f51e26',
    ('padding_backward', 'arm64-sve256'): 'e3360a57a661a547694cd0cc9e2ce066193edfe42f815ed671191dc9d1b6d4ea',
    ('unfold_backward', 'arm64-sve256'): '86bf3f8f8073349f60b59b5b717745c69dce48f94275233109d3c7c655d9b3f0',
    ('nll_loss2d', 'arm64-sve256'): 'd99ad54aec4bf0bae7d917e65b1846e83d2df20e2151fe1caba902dda625ada5',
    ('nll_loss2d_backward', 'arm64-sve256'): '3c5a3dd5daacd568678974becba9d3a45d37817187f211e169651f5db439ceae',
    ('cdist', 'arm64-sve256'): 'abdbe0a898298a2acd074fd4f583ce55faab668abe25ae9ccc684b447692c2af',
    ('cdist_backward', 'arm64-sve256'): 'a012339ed34c9db78ded7b3845c55b5af18a5a83d4f8ad06e12332d8c054bb42',
}  # fmt: skip
REFUSED: dict[tuple[str, str], tuple] = {
    ('lerp', 'arm64-neon'): (2, 17),
    ('lerp_tensor', 'arm64-neon'): (8, 14),
    ('addcmul', 'arm64-neon'): (2, 14, 17),
    ('addcdiv', 'arm64-neon'): (2, 14),
    ('prelu_backward', 'arm64-neon'): (2, 8),
    ('smooth_l1_loss', 'arm64-neon'): (2, 8, 14, 17),
    ('huber_loss', 'arm64-neon'): (2, 5, 8, 14, 17),
    ('padding_backward', 'arm64-neon'): (2, 5, 11, 14, 17),
    ('unfold_backward', 'arm64-neon'): (5,),
    ('lerp', 'arm64-sve128'): (2, 17),
    ('lerp_tensor', 'arm64-sve128'): (8, 14),
    ('addcmul', 'arm64-sve128'): (2, 14, 17),
    ('addcdiv', 'arm64-sve128'): (2, 14),
    ('prelu_backward', 'arm64-sve128'): (2, 8),
    ('smooth_l1_loss', 'arm64-sve128'): (2, 8, 14, 17),
    ('huber_loss', 'arm64-sve128'): (2, 5, 8, 14, 17),
    ('padding_backward', 'arm64-sve128'): (2, 5, 11, 14, 17),
    ('unfold_backward', 'arm64-sve128'): (5,),
    ('lerp', 'arm64-sve256'): (2, 17),
    ('lerp_tensor', 'arm64-sve256'): (8, 14),
    ('addcmul', 'arm64-sve256'): (2, 14, 17),
    ('addcdiv', 'arm64-sve256'): (2, 14),
    ('prelu_backward', 'arm64-sve256'): (2, 8),
    ('smooth_l1_loss', 'arm64-sve256'): (2, 8, 14, 17),
    ('huber_loss', 'arm64-sve256'): (2, 5, 8, 14, 17),
    ('padding_backward', 'arm64-sve256'): (2, 5, 11, 14, 17),
    ('unfold_backward', 'arm64-sve256'): (5,),
}  # fmt: skip
CASES = recording_grid(cases.OPS)


@pytest.mark.parametrize(("op", "profile_name", "threads"), CASES)
def test_impl_matches_the_recording(op: str, profile_name: str, threads: int) -> None:
    replay = replayed_case_file(cases, op, profile_name, threads)
    assert replay == recorded(DIGESTS, REFUSED, (op, profile_name), threads)
