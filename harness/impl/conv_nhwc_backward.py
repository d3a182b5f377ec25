"""2-D convolution of channels-last tensors, backward (``aten.convolution_backward`` where the input or
the weight is NHWC in memory, grad_output channels-last as autograd gives it), as torch 2.13.0 runs it
on x86 CPUs at the baseline (SSE4.1) and AVX2 levels, 1 to 16 threads at AVX2 (one group to 2,048
channels a side): grad_input, grad_weight, grad_bias for one group and depthwise (groups = C = OC)
convolutions; at AVX-512 1x1 kernels at
stride 1 (pointwise), kernels over 1x1 (grad_input where the forward's row fits its input, where it
outgrows it by the blocking oneDNN's search keeps, or at a stride; grad_weight and grad_bias), 1x1 kernels at
a stride or padded (ResNet's shortcut), depthwise ones and ATen's slow_conv2d, on 1, 2, 4, 8 and 16 threads
(depthwise on 1 to 16). The forward, the layout rule and the pieces both share: harness.impl.conv_nhwc.

Shapes (logical NCHW float32): x (N, C, H, W), w (OC, C / G, KH, KW), dy (N, OC, OH, OW).

What runs (ONEDNN_VERBOSE) and what the model does. Both levels: oneDNN's ``jit_dw`` backward weights
on nxc memory (``harness_nxc``, jit_uni_dw_convolution.cpp execute_backward_weights_nxc;
jit_uni_dw_conv_kernel_utils.cpp partition_nthr_nxc, ``_dw_nxc_partition``): the threads split channel
outer blocks (nb_ch_blocking blocks of 8: at AVX2 min(nb_ch, 4, 15 // (2 KW)), at SSE4.1 one), images
and blocks of output rows; per thread and weight one chain from 0 over its (image, row block, row,
column) (fused at AVX2, each product rounded at SSE4.1), the bias a chain of additions alike; the main
thread's sums, then the others' added in execute_reduction_nxc's order. Rows over 30 columns
(max_unroll_w_) the kernel takes in column blocks of 15 (calculate_w_unrolling; the last one the rest,
widened by 15 where the right padding reaches past the rest, ``_dw_ow_blocks``), the blocks outermost
in each kernel call (an image's block of rows): per weight the chain runs (image, row block, column
block, row, the block's columns); the bias's chain (compute_spatial_loop_bias) stays in row order.
The channel count changes no chain (each channel outer block's calls are the thread's own), only
partition_nthr_nxc's split. Depthwise at AVX2 and AVX-512 is modelled at 1 to 16 threads
(measured on a Zen 5, ``measure_dw.py``: MobileNetV2's 10 depthwise backwards at 224, batch 2, with
HF's TF padding and with padding 1, and ConvNeXt-T's four 7x7 ones, 24 of 24 bit for bit in every
gradient at each level and thread count; 60 random draws a thread count, 2 to 960 channels,
kernels 1x1 to 7x7, strides 1 and 2, rows to 120 columns, a fifth with ±0 and subnormals, a fifth
with NaN and infinities: at AVX2 57, 57, 51, 52 and 54 bit for bit at 1, 2, 4, 8 and 16 threads, at
AVX-512 47, 48, 48, 48 and 48, none other; refused at AVX2 3 slow_conv2d per group on 1 thread, 1
gemm:jit over 3 channels and 3, 8, 8 and 6 NaN or infinite operands reduced over thread blocks
(below), at AVX-512 12 a thread count NaN or infinite operands (1 thread: 10 and 3 slow_conv2d per
group); at 3, 5, 6 and 12 threads 30 draws each, at 7, 9, 10, 11, 13, 14 and 15 15 each, the real
shapes every one bit for bit, none other; of the draws at 1 to 16 threads 17 to 23 a thread count with
rows over 30 columns, 23 to 32 over 64 channels, up to 8 (AVX2) and 15 (AVX-512) with the reduction
over both images and rows;
``measure_dw_widened.py``: 20 draws at each of 1 and 4 threads and each level where the right
padding widens the last block (3 to 5 of them), 20 of 20 bit for bit each. The whole row as one
block gives other bits in 590 of the 648 weights of a 46-column 72-channel case, and in none at 16
threads: one row a kernel call). Over NaN and infinite operands (``measure_dw_nan.py``, the model
called directly, 3 to 12 NaN, infinities and -0 in x and dy, 20 draws a thread count): 20 of 20 bit
for bit on 1 and 16 threads at both levels, 19 of 20 on 2 and 8, the other two (the same at AVX2 and
AVX-512) NaN bits only, where execute_reduction_nxc adds thread blocks' sums that hold NaNs (one
where torch keeps 0xFFC00000, the default NaN of inf - inf, and the model an operand's): refused
where the weights' reduction spans more than one thread block (``_dw_reduction_nonfinite``; at
AVX-512 every NaN or infinite operand of the weights stays refused).

At AVX2:

- backward data, stride 1, kernel over 1x1: ``brg_conv_bwd:avx2+brg_conv_fwd:avx2``, oneDNN's
  forward brgemm convolution of grad_output with the weights' channels swapped and the taps inverted
  (jit_brgemm_conv_bwd.cpp, jit_brgemm_conv.cpp). Its AVX2 brgemm kernel starts each call's
  accumulators at 0 and adds C at the store (beta = 1): per element one fused chain per brgemm call
  over (the call's taps, the block's channels), the calls' sums added in order. Where the forward's row
  fits its input (W <= OW: ker_vpad, one call over all taps row by row, ``_brg_bwd_data``). Where it
  outgrows it (W > OW, any row width) the blocking init_conf's search keeps, as at AVX-512 below
  (``_ker_search_data``), with AVX2's own parameters (``conv_nhwc._search_level``): vectors of 8 and 16 registers
  (brgemm_blocking loads B a vector at a time where a row takes 4 vectors, n_bcast_1_load), estimate_ur 14,
  6, 4 and 3 rows for 1 to 4 vectors, an L2 of 2 MiB whatever the host's, select_ic_block's AVX2 rule
  (conv_nhwc ``_avx2_ic_block``), output-channel blocks of 4 down to 1 vectors (2 under loop_gcndhw, more
  images than threads with both operands over L2): exec_vpad's ker_vpad where its ow block fits the
  forward's input, else exec_base's ker_base calls per ow block. Measured on a Zen 5
  (``measure_wider.py wider``: 1 or 2 images, 1 to 300 channels a side, a third off multiples of 8 and 16
  by 1 to 3, H and W 5 to 60, kernels 3, 5 and 7 at stride 1, padding below (K - 1) / 2, a fifth with NaN,
  infinities, ±0 and subnormals in dy and w; 12 draws a thread count): 12 of 12 bit for bit at each of 1, 2, 3, 4,
  8 and 16 threads (72 of 72, 12 with specials), none other (before: every one refused, 14 or 15 of 40 random
  draws). The ic blocks (grad_output's channels a call takes) are those of the forward's select_ic_block at AVX2
  (``_avx2_data_blocks``: conv_nhwc ``_avx2_ic_blocks`` over OC in, C out): every output channel in one block where
  they fill at most 256 vectors of 8 and a channel's weights and input row of the unroll take under 1,400 bytes (3x3
  kernels up to 2,048 channels), else at most 40 vectors; refused where the output-channel block its
  search picks changes the block (a 5x5 kernel past 320 output channels: 320 or all). Threads split the
  forward's images, rows and channel blocks, never the reduction. Measured on a Zen 5 (ONEDNN_VERBOSE,
  ``avx2_data_measure.py``): ResNet-50's 22 distinct channels-last convolutions (batch 2 at 224, 64 to
  2,048 channels, 1x1 and 3x3 at strides 1 and 2), grad_input bit for bit in 22 of 22 at each of 1, 2,
  4, 8 and 16 threads (slow_conv2d for the stride-1 1x1s at 1 thread); random draws (9 to 600 channels
  a side, off multiples of 8, 1x1, 3x3 and 5x5 kernels, strides 1 and 2, padding to half the kernel, a
  fifth with NaN, infinities, ±0 and subnormals, a fifth with ±0 and subnormals; 40 at each of 1, 2,
  4, 8 and 16 threads, 40 more at 3 and 6, and 30 of the modelled kinds alone to 1,100 channels at 1,
  2, 4, 8 and 16): 20 of 40 bit for bit at each count (22 to 25 of 30), none other; refused then 14 or 15
  W > OW (modelled since, above), 4 or 5 brgconv_strided over NaN or infinities, 1 to 3 ic blocks by the
  search.
- backward data, 1x1 stride 1: ``brg_conv_bwd:avx2+brgconv_1x1:avx2``: one fused chain from 0 over
  the output channels (one brgemm call, ``_brg_bwd_data``), on any thread count: the forward it runs
  keeps every output channel in one ic block (select_ic_block) past 64 too (measured to 256: one
  chain, where blocks of 8 to 128 channels added gave other bits in every draw; ResNet-50's to 2,048);
  its ic blocks as for kernels over 1x1 (above).
- a padded 1x1 at stride 1: ``gemm:jit`` for grad_input and the weights (brgconv_1x1 and jit_1x1
  take no padding): gemm_convolution.cpp's nspc passes as at SSE4.1 (below) with oneDNN's AVX2 sgemm.
- backward data, strides 2 to 4: ``brgconv_strided:avx2`` (conv.py's model of it, its blocking search;
  strides 3 and 4, as DPT's 4x transposed upsampler runs it, measured since: ``_AVX2_STRIDES``);
  refused over NaN or infinite grad_output or weights (``strided_nan_probe.py``: 1 of 5 such draws gave
  NaNs where the model has numbers, as at AVX-512) and where brg_conv_bwd's ic-block rule
  (``_avx2_data_blocks``) gives several blocks (2 draws of a 5x5 kernel over 547 and 551 output
  channels gave other bits on some thread counts: 16, and 1, 2, 3 and 6, not 4); past 64 channels 3x3
  and 1x1 kernels to 1,083 channels bit for bit at 1 to 16 threads.
- backward data, depthwise: ``jit_dw:avx2`` (conv_grouped.py: one fused chain over the taps).
- backward weights, one group: ``jit:avx2`` (weights ABcd8b8a; jit_avx2_conv_kernel_f32.cpp
  compute_oh_loop_common: per weight one fused chain over (image, oh, ow), cpu_reducer's balance
  splitting the images between threads, the threads' sums added; the bias alike: conv.py's model).
  ``jit_1x1:avx2`` for 1x1 stride 1 unpadded (jit_avx2_1x1_convolution.cpp execute_backward_weights, nxc;
  ``_jit_1x1_weights``), and at a stride dividing H and W over the input's pixels the stride picks, which
  rtus gathers first (the kernel and its blocking then see a stride-1 convolution of an OH x OW input;
  ResNet-50's strided shortcuts): conv.py's model of the kernel with init_conf's nxc blocking. Per thread and
  image the kernel calls of oc_ic_sp_loop over min(OW, 128) pixels (all that are left below 1.5
  times that; 128 and 192 on blocked memory), each a fused chain from 0 added to the thread's sum.
  cpu_reducer's balance (reduce_balancer_t over jobs of nb_load_blocking by nb_bcast_blocking
  blocks of 8 channels: on nxc the output-channel blocks halved or thirded down to 32 only where OC
  is a multiple of 8, the input-channel blocks down to 17 only where C is a multiple of 8 and the
  input has at most 1,024 pixels; the reduction N*OH*OW) says how many threads share a job: they
  split its (image, pixel) pairs by balance211, their sums added in order (cpu_reducer_2d).
  grad_bias per channel a chain over the (image, pixel) pairs of the bias reducer's part of the
  images (its buffers sized by the weights' job), the parts added. Against torch (1x1 convolutions
  of 16 to 320 channels, 4 to 40 pixels a side): 200 of 200 at 1 thread, 177 of 177 at 2 and at 4,
  both gradients bit for bit;
  the blocked calls gave other bits in 553 of the 554. Past 64 channels (65 to 256 on one side, 1 to
  256 on the other, 4 to 32 pixels a side) with grad_input, every gradient bit for bit: 119 of 119
  at 2 threads (1 to 4 images), 70 of 70 at 1 (16 to 18 images); padded by 1, through gemm:jit, 74
  of 74 at 2 threads and 30 of 30 at 1 (where before a padded 1x1 up to 64 channels was modelled as
  jit_1x1 and gave other bits in 22 of 30 draws). ``gemm:jit`` where jit:avx2's init_conf
  declines (a kernel taller than the input, a padding not below the kernel side, 14 columns or
  more): gemm_convolution.cpp's nspc weights as at SSE4.1 (below) with oneDNN's AVX2 sgemm
  (harness.impl.onednn_sgemm), grad_bias its 4 lanes alike (200 of 200 at 1 and at 2 threads where
  ONEDNN_VERBOSE named gemm:jit), a padded 1x1 at a stride too. At real channel and thread counts
  (``avx2_weights_probe.py`` on a Zen 5, ONEDNN_VERBOSE naming the predicted kernel in all 924
  draws): ResNet-50's channels-last convolutions (batch 2 at 224; 64 to 2,048 channels, 3x3 and 1x1
  at strides 1 and 2) 22 of 22 bit for bit in both gradients at each of 1, 2, 4, 8 and 16 threads
  (12 of them slow_conv2d at 1 thread), at batch 8 (112 a side) 22 of 22 at 4 and 16, its first
  convolution (3 channels, 7x7) and 11 random 3-channel ones at each of those 5 counts 58 of 58
  (2 slow_conv2d); random draws (9 to 300 channels, half of them off 8, kernels 1 to 5, strides 1
  and 2, 1 to 19 images, 2 in 5 with NaN, infinities, ±0 or subnormals; 40 at each of 1, 2, 4, 8
  and 16 threads, 30 at 3, 6 and 12) jit:avx2 209 of 209, jit_1x1:avx2 37 and 5 refused; 1x1 at
  stride 2 (30 a thread count, 1, 2, 4, 8, 16) jit_1x1 over the gathered pixels 87 and 19 refused,
  jit:avx2 (an odd side) 32 of 32; gemm:jit (a padded 1x1 at strides 1 and 2, a kernel taller than
  the input, a 2x2 padded by 2; 30 a thread count) 107 and 28 refused; none other. Refused:
  jit_1x1's and gemm:jit's weights and bias over NaN or infinite operands (which NaN their sums keep,
  its sign, not modelled: without the refusal 2 of 21 such jit_1x1 draws and 9 of 27 gemm:jit ones at
  1, 2 and 4 threads gave a NaN of the other sign, one of them in gemm:jit's grad_bias), a strided
  1x1 below 8 input channels (torch itself corrupts its heap there: glibc's MALLOC_CHECK_=3 aborts),
  more than 16 threads or 2,048 channels (not measured). Before, more than 2 threads, more than 64
  channels (but 1x1 at stride 1) and the strided 1x1 were refused; the jit:avx2 model there gave
  other bits in 3 of 3 ResNet-50 shortcuts.
- backward weights, depthwise: ``jit_dw:avx2`` with ``harness_nxc`` (jit_uni_dw_convolution.cpp
  execute_backward_weights_nxc; jit_uni_dw_conv_kernel_utils.cpp partition_nthr_nxc): the threads
  split (channel outer blocks of nb_ch_blocking blocks of 8, images, blocks of oh_blk_size output
  rows) by partition_nthr_nxc's search (``_dw_nxc_partition``); per thread and weight one fused chain
  over its (image, row block, row, column) in order, the bias a chain of additions alike; the main
  thread's (image part 0, row part 0) sums then the other threads' added in execute_reduction_nxc's
  order, rows over 30 columns in column blocks (above). Where jit_dw's weights kernel declines (a
  kernel wider than 3, padding over half the kernel, ...): ``jit:avx2`` over the C groups of one
  channel (weights aBCde8c8b), conv_grouped's model of it over blocked memory (cpu_reducer's balance
  over C jobs of 8 by 8 channels splitting the images, per thread and weight one fused chain over
  (image, row, column), the threads' sums added; grad_bias its reducer alike): ``measure_dw_wide.py``,
  kernels 4 to 7 wide, 1 to 7 tall, strides 1 and 2, 2 to 400 channels, rows to 60 columns, 40 draws
  a thread count (a fifth with NaN and infinities): 40, 40, 37, 39 and 37 bit for bit at 1, 2, 4, 8
  and 16 threads, ConvNeXt-T's four 4 of 4 at each, none other (at 3, 5, 6 and 12 threads 20 draws
  each, at 7, 9, 10, 11, 13, 14 and 15 10 each: none other, 2 refused on 3 channels). Where jit:avx2's
  weights decline too (a kernel taller than the input or padded to its side, 14 or more columns:
  ConvNeXt V2's 7x7 over a 4x4 grid) and on 3 channels (ONEDNN_VERBOSE names gemm:jit, weights decab,
  for 3 channels on every kernel, stride, padding and width probed, ``probe_wide_kernel.py``; modelled
  as jit:avx2 one such draw had given other bits): ``gemm:jit`` nspc over the groups as at SSE4.1
  below (``_dw_weights_gemm``), its sgemms oneDNN's AVX2 ones: per group and image M = 1, its gemv 'T'
  (8 lanes over blocks of 16 terms, fused, the rest in pieces of 8, 4, 2, 1, each piece's sum added to
  y; grad_output strided by C, so in copies of 512 terms; 'N' fused for a plain 1x1); init_conf's
  outer threading (OH*OW / threads < 256 and more than one image or 2 groups) gives bwd_weights_balance
  min(C, threads) threads over the groups and min(N, threads // C) over a group's images, their sums
  added in order (else each gemv on all the threads, which split its outputs); grad_bias gemm:jit's
  lanes (``_gemm_bias``). Measured on a Zen 5 (``measure_dw_gemm.py``: random depthwise draws, kernels
  3 to 7 over grids of 1 to 9, 1-D kernels of 14 to 33 taps over rows to 300, 3 channels over grids to
  48, 1 to 4 images, strides 1 and 2, a quarter with NaN, infinities, -0 and subnormals; 1, 2, 4 and 8
  threads): every route ONEDNN_VERBOSE named as predicted, of the draws gemm:jit runs 78 of 95, 90 of
  102, 75 of 93 and 76 of 86 bit for bit at 1, 2, 4 and 8 threads, 48 of 51 and 45 of 49 at 3 and 16,
  the rest refused (NaN results of either kind, padding over 3), none other; refused before.
- ATen's ``_slow_conv2d`` on channels-last memory: as at SSE4.1 (below), MKL's gemms and ATen's sum
  at this level (78 of 78 random cases bit for bit at 1 thread).

At AVX-512 (measured on a Zen 5, L1d 48 KiB, L2 1 MiB a core; ONEDNN_VERBOSE):

- backward data, 1x1 at stride 1 unpadded: ``brg_conv_bwd:avx512_core+brgconv_1x1:avx512_core``, the
  forward brgemm convolution of grad_output: per input element and block of output channels one
  fused chain from 0, the blocks' sums added in order (``_brg_bwd_data``); the blocks are the ic
  blocks of that forward (harness.impl.conv_nhwc ``avx512_ic_blocks`` over OC in, C out), refused
  where the output-channel block its search picks would change them.
- backward weights and bias, 1x1 at stride 1: ``jit_1x1:avx512_core`` on nxc memory, conv.py's model
  of the kernel (``_avx512_1x1_weight_split``) with the nxc blocking of init_conf and the driver
  (jit_avx512_common_1x1_conv_kernel.cpp, jit_avx512_common_1x1_convolution.cpp): an unroll of 16
  rows where OC is at most 16; calls of min(OW, 256) pixels from 784 pixels and 128 output channels;
  at most 4 pixel blocks a call where C * 4 bytes is a multiple of 1,024 (cache_aliasing: the 13
  draws of 256 and 512 channels where the blocked layout's calls gave other grad_weight bits are bit
  for bit with it). grad_bias its reducer's parts, as for NCHW.
- a 1x1 at a stride or padded (ResNet-50's shortcut: 1x1 at stride 2, no padding; ``_avx512_1x1_kinds``,
  ONEDNN_VERBOSE): grad_input ``brgconv_strided:avx512_core`` at a stride (conv.py's model, as for kernels
  over 1x1; refused where its blocking search declines and over NaN or infinite dy or weights),
  ``gemm:jit`` padded at stride 1 (nspc, as at AVX2, with oneDNN's AVX-512 sgemm); grad_weight and
  grad_bias ``jit_1x1:avx512_core`` unpadded where the stride divides H and W (its reduce-to-unit-stride
  copy: conv.py's model over the strided pixels with the nxc blocking above), ``jit:avx512_core`` on nxc
  unpadded otherwise (``_avx512_nxc_weights``), ``gemm:jit`` padded (as at AVX2, the AVX-512 sgemm).
  Against torch (``measure.py strided``: 1 to 5 images, 1 to 299 channels each side, 1 to 29 pixels a
  side, half of them multiples of the stride, strides 2 and 3 unpadded, padding 1 at strides 1 and 2, 60
  draws at each of 1, 2, 4, 8 and 16 threads, a fifth with NaN, infinities, ±0 and subnormals): 42, 45, 44,
  44 and 42 bit for bit in every gradient, none other; refused 12, 10, 10, 12 and 12 NaN or infinite
  operands (the weights' passes, cpublas's NaNs), 6, 5, 5, 3 and 4 by the heap rule below (0, 0, 1, 1 and 2
  one-channel draws of NCHW strides, harness.impl.conv's). ResNet-50's three shortcuts bit for bit at every count.
  Refused: jit_1x1's weights of a strided 1x1 below 16 input channels (torch alone corrupts its heap there,
  ``torch_heap_probe.py``: glibc aborts at 3, 5, 8 and 15 channels on 2, 4, 8 and 16 threads, not at 16, 17
  and 32; one such draw at 4 threads crashed ``measure.py``).
- depthwise: ``jit_dw:avx512_core`` both passes. grad_input conv_grouped's model (one fused chain over
  the taps); grad_weight and grad_bias ``harness_nxc`` as at AVX2 (``_dw_nxc_weights``) with channel
  blocks of 16 and nb_ch_blocking min(nb_ch, 4, 31 // (2 KW)), reductions over both images and rows
  included: 102 of 104 weights so bit for bit at 1, 2 and 4 threads, the 2 others 1x1 kernels on 1
  thread that ATen runs per group (slow_conv2d, refused: ``common_declines``), and
  through the module 37, 40 and 43 draws bit for bit in every gradient, none other. Where jit_dw's
  weights kernel declines (a kernel wider than 3: ConvNeXt's 7x7), ``jit:avx512_core`` over groups
  (weights aBCde16c16b; ``_avx512_group_weights``): its balance gives each group one thread where
  there are fewer threads than channels, else each channel threads // C threads that split the images
  by balance211 (nthr_mb = min(threads // C, N): one block of channels each side, so the memory cost
  falls with every thread up to the images; ``_avx512_group_image_threads``), their sums added in
  order (reduce_diff_weights); per channel and part one fused chain over (image, row, column), at
  stride 1 (expl_bcast) each kernel call's chain from 0 added, as for one group below; grad_bias per
  channel one chain of additions over (image, pixel) of each part of its bias reducer
  (reduce_balancer_t over C jobs on nthr_mb * C threads), added in order (``dw_wide_probe.py``: 90 of
  90 weights and biases so, one chain a channel fitting only the strided ones; ``dw_wide_measure.py``,
  60 draws at each of 1, 2 and 4 threads, kernels 4x4 to 7x7, strides 1 and 2, rows to 39 columns, a
  fifth with specials: 52, 42 and 40 bit for bit in every gradient, none other; refused 8, 9 and 11
  NaN or infinite operands; ``dw_few_measure.py``, 2 to 6 channels, kernels 4 to 7 wide and 1 to 7
  tall, strides 1 and 2, 1 to 5 images, 50 draws at each of 1, 2 and 4 threads, a fifth with ±0 and
  subnormals, a fifth with NaN and infinities: 40, 40 and 40 bit for bit in every gradient, none
  other, of them 0, 9 and 28 with no more channels than threads and 0, 0 and 6 with the images split;
  refused 10, 10 and 10 NaN or infinite operands). Refused: the padding jit:avx512_core declines,
  NaN or infinite operands of the weights (as below). On 1 to 16 threads, rows to 120 columns
  (jit_dw's column blocks, above): ``measure_dw_wide.py`` 32 of 40 draws bit for bit at each of 1,
  2, 4, 8 and 16 threads, ConvNeXt-T's four 4 of 4, none other, 8 refused (NaN or infinite operands);
  16 of 20 at 3, 5, 6 and 12 threads, 8 of 10 at 7, 9, 10, 11, 13, 14 and 15, the rest refused alike.
- backward data, a kernel over 1x1 at stride 1: ``brg_conv_bwd:avx512_core+brg_conv_fwd:avx512_core``, the
  forward brgemm convolution of grad_output with the weights' channels swapped and the taps inverted
  (padding K - 1 - P): per input element and ic block of that forward (``avx512_ic_blocks`` over OC in, C
  out) one fused chain from 0 over the taps row by row from the last, at a tap the block's output
  channels, the blocks' sums added in order (``_brg_bwd_data``). Modelled where the forward's row fits its
  input (W <= OW) and that forward takes its taps in one brgemm call. W > OW (``_ker_search_data``,
  ``_brg_bwd_blocked``; ``conv_nhwc.exec_search``, which with the column stride and the taps' dilation in
  get_inp_size also sets harness.impl.conv_nhwc_dilated's blocking): init_conf's search picks the
  forward's kernel: it tries exec_vpad and keeps it
  where the ow block its search finds fits the forward's input (else the kernel would need virtual padding
  on both sides), else exec_base; each search (try_exec_type) scores output-channel blocks of 4 down to 1
  vectors, kernel-row blocks KH and 1 and ow blocks div_up(W, ns) by brg_blocking_t::est_eff
  (``conv_nhwc._fwd_eff``, float32 as oneDNN, its L1 7/8 and L2 3/4 of the host's), the unroll brgemm_blocking's
  (``conv_nhwc._brgemm_rows``: no row block under the virtual padding, the oc tail's kernel too). ker_vpad: per
  element and ic block one chain a block of kernel rows over the valid taps. ker_base: per ow block the
  forward taps valid for part of the block one call each (left of those valid for all of it, then those in
  one call, then the rest), each call over a block of the valid kernel rows (kh_block_pad: all of them
  where KW >= KH, else one), a chain from 0 added to C in order (x86's brgemm adds C at the store); an
  element the first call of its block misses starts from the zeros the kernel writes (0 + its first
  chain). NaNs as x86 makes them (csrc/conv.c conv_bwd_data_terms_x86): the product's NaN operand before
  the accumulator's in a multiply-add, a call's chain before C in its addition, inf * 0 and inf - inf the
  default NaN 0xFFC00000. est_eff's thread balance is balance211's over the work items whatever the
  work per thread (the model had taken work / rnd_up(work, threads) where a thread has at least as many
  items as there are threads: on 8 and 16 threads it kept exec_vpad where torch ran exec_base, 8 of 20 such
  picks on a Zen 5, 20 of 20 with the per-item balance); select_ic_block leaves the batch L2 less the output
  rows of the unroll its object last set (0 before the first brgemm estimate: a 7x7 kernel over 111
  output channels at 4 threads had given other bits with ic blocks of 64 where torch takes one of 111).
  Rows over 60 columns were refused (not measured; before, rows over 39: 2 of 12 draws of 40 to 89 columns at
  4 threads had run the other exec type, the balance above); measured since (harness.impl.conv_nhwc's
  "Measured with the search": WavLM's kernel-5 TDNN layer, 512 channels over 49 to 249 columns, and random
  undilated draws of 20 to 150 columns), none other, at any width. Against torch (``kxk_measure.py``: kernels 2 to 7 a
  side, 1 to 3 images, 2 to 200 input channels, five in six past 16, 2 to 79 output channels, rows to 39 columns,
  40 draws at each of 1, 2 and 4 threads, a fifth with ±0 and subnormals, a fifth with NaN and infinities too):
  32, 32 and 31 bit for bit in every gradient (6, 3 and 3 of them ker_vpad, 20, 23 and 22 ker_base past 16 channels,
  6, 6 and 6 up to 16), none other; refused 8, 8 and 9 (NaN or infinite operands of the weights' passes, ATen's
  slow_conv2d or, before the NaN rules, of grad_input; one forward of several brgemm calls, W = OW). Over
  NaN and infinite grad_output and weights, grad_input alone (``nan_measure.py``, 25 draws a thread count,
  NaN, infinities, ±0 and subnormals in dy and the weights): 21, 24 and 22 bit for bit, each with NaNs in
  grad_input, none other; refused 4, 1 and 3 (ATen's slow_conv2d). Before the NaN rules the chains'
  numbers held and their NaNs' sign did not (``nan_probe.py``: 5 of 10 draws differing only in which NaN;
  ``nan_order.py``: the rules above fit every oneDNN draw). The whole-row ker_base model this replaces
  (conv.py ``brg_bwd_calls``) had given other bits in 3 draws up to 16 channels of the same script's first
  runs (kernels taller than wide: one row a tap, not one call over a row's taps; ow blocks of 4 on 4
  threads), all 3 bit for bit with the search.
- backward data at a stride: ``brgconv_strided:avx512_core``, conv.py's model of it (its blocking
  search at 16 floats a vector: 60 of 60 random strided draws bit for bit at 2 threads on nxc);
  refused over NaN or infinite grad_output or weights (11 of 26 such draws gave other bits: the
  kernel's padded taps and its NaNs not modelled; again on a Zen 5, ``strided_nan_probe.py`` at 2
  threads: 6 of 12 bit for bit, 1 differing in NaNs' sign, 5 with NaNs where the model has numbers,
  taps the kernel multiplies outside grad_output, inf * 0).
- backward weights and bias, a kernel over 1x1: ``jit:avx512_core`` on nxc memory (jit_avx512_common_
  conv_kernel.cpp init_conf: nxc never takes the 2-D (image, row) harness, and takes 4 to 15 input
  channels with its first-convolution kernel, ic_block = C): the images split by its balance
  (``conv._avx512_balance`` without the rows' reduction), per thread one fused chain over its (image,
  row, column), the threads' sums added in order. With expl_bcast (stride 1 along the row and 16 input
  channels or more) compute_ic_block_step_fma_expl starts each kernel call's accumulators at 0 and
  adds them to the weights after: per output row one call up to 28 columns (max_ur_w), past that
  compute_oh_step_common's calls of 28 with its tail rule (``_expl_row_calls``), each call's chain
  added to the thread's sum (conv.py's model on nxc, one chain a thread, had fitted 8 of 40 kxk
  draws). grad_bias the images' harness bias reducer (``conv._bias_parts`` with ``nxc``). Where
  jit:avx512_core declines on nxc (``conv._avx512_weights_declines``: paddings, kernels wider than 14;
  depthwise where jit_dw's declines too) oneDNN's list goes on to jit:avx2, else gemm:jit
  (ONEDNN_VERBOSE): the AVX2 level's models of them, gemm:jit with the AVX-512 sgemm
  (``_avx512_declined_weights``; refused where the AVX2 level refuses them); refused over NaN or
  infinite operands (as below).
- grad_input of a kernel over 1x1 at stride 1 with a side wholly in the padding (``_data_gemm_jit``):
  brg_conv_bwd declines at avx2 and avx512_core alike, ``gemm:jit`` nspc or ``ref:any`` runs it; refused
  (the brg_conv_bwd model had given other bits there).
- ``ip:any+brg_matmul:avx512_core`` (ip_convolution: one output pixel, no padding, stride 1, more
  than one image and 27 taps): an inner product, refused in every pass (conv_nhwc's forward too:
  its brgemm chain had given other bits in 12 of 20 such forwards).
- ATen's slow_conv2d where its rule takes the convolution: as at SSE4.1 (below).

Kernels over 1x1 against torch (``kxk_bwd_measure.py``: 1 to 5 images, 2 to 128 channels each side,
kernels 2x2 to 7x7, strides 1 and 2, padding to half the kernel, rows to 69 columns, a quarter asking
grad_weight and grad_bias alone as a first layer's backward does, 150 draws at each of 1, 2 and 4
threads, a fifth with NaN, infinities, zeros of both signs and subnormals): grad_weight and grad_bias
87, 89 and 88 bit for bit, grad_input 55, 63 and 58, none other; refused 35, 37 and 39 grad_input
(W > OW, or brgconv_strided's search declines), 27, 24 and 23 NaN or infinite operands of the
weights, 1 ic block by the picked output-channel block. With ker_base modelled (100 draws a thread
count, and 80 with ±0 and subnormals in each): 54 of 54 of its grad_inputs bit for bit, none other in
any gradient. With zeros of both signs and subnormals in
every draw (80 a thread count): 58, 67 and 64 draws' weights and bias and 41, 46 and 43 grad_inputs
bit for bit, none other. grad_input alone over NaN and infinities at stride 1 (80 draws a thread count, a third
with them): 22 of 22 bit for bit; at a stride refused (26).

Against torch (random draws, 1 to 5 images or 16 to 18, 2 to 512 channels each side, 1 to 16 pixels
a side, 150 at each of 1, 2 and 4 threads, a fifth with NaN, infinities, zeros of both signs and
subnormals): the oneDNN 1x1 backwards 15, 80 and 81 bit for bit in every gradient, none other; the
slow_conv2d ones bit for bit but 17 draws with NaN operands, whose NaNs carry the other sign or
payload (MKL's sgemm model and ATen's sums, not AVX-512's own: slow_conv2d's forward NaNs differ
alike at AVX2, and of 40 draws there jit_1x1:avx2's grad_weight and grad_bias each gave other NaN
bits in one). Refused: jit_1x1's weights and bias over NaN or infinite operands (which NaN its
reductions keep is not modelled: before the refusal 30 of 360 draws gave grad_weight's NaNs other
bits, 18 grad_bias's; now 4, 23 and 17 refused), kernels over 1x1 (before they were modelled: 24,
30 and 31 refused; see above), 3 threads and more than 4 (one group: see below; depthwise: more than 16).

One group on 8 and 16 threads (measured on this 2-core Zen 5: oneDNN and OpenMP keep the team asked for, so
T threads give T cores' bits): the models above take the thread count where their kernels do (jit_1x1's
balance and reducers, jit:avx512_core's balance over the images and its bias reducer, the brgemm kernels'
blocking searches, gemm:jit's threading), and hold there. ResNet-50 channels-last at batch 2, 224 (its 23
distinct convolutions: 12 pointwise, 3 shortcuts, 4 3x3 at stride 1 and 4 at stride 2; the first layer's
weights and bias alone): 23 of 23 bit for bit in every gradient at each of 1, 2, 4, 8 and 16 threads. Random
draws (``measure.py random``: 1x1 at stride 1, kernels 2 to 5 at strides 1 and 2, strided or padded 1x1s, 1
to 5 images, 1 to 299 channels each side, 90 draws a thread count, a fifth with specials): 72, 70, 71, 67
and 66 bit for bit in every gradient at 1, 2, 4, 8 and 16 threads, none other; refused 18, 20, 19, 23 and
24: NaN or infinite operands 17, 17, 18, 15 and 17 (the weights' passes; cpublas's NaNs in slow_conv2d), the
strided 1x1s' heap rule 1, 1, 1, 0 and 1, W > OW past 4 threads 0, 0, 0, 7 and 5, one-channel draws of NCHW
strides (harness.impl.conv's) 0, 2, 0, 1 and 1. ResNet-like draws (``measure.py resnetlike``: 1 to 4 images,
64 to 512 channels a side, rows of 7 to 56, 1x1 and 3x3 at strides 1 and 2, 60 at each of 8 and 16 threads,
a fifth with specials): 46 and 47 bit for bit in every gradient, none other; refused 14 and 13 (NaN or
infinite operands 12 and 12, the ic blocks of 512 output channels 2 and 1). brg_conv_bwd's grad_input where
W > OW (``_ker_search_data``), refused past 4 threads before (23 of 24 and 25 of 26 draws at 8 and 16 threads
had been bit for bit, the other one each where torch ran exec_base and the search kept exec_vpad), is
modelled on 8 and 16 threads with est_eff's per-item thread balance (above): ``measure_wider.py wider`` (as
at AVX2 above, 12 draws a thread count) 12 of 12 bit for bit at each of 1, 2, 4, 8 and 16 threads (60 of 60), none
other. Refused: thread counts other than 1, 2, 4, 8 and 16 (not measured).

At SSE4.1 (and AVX2 for slow_conv2d):

- ATen's ``_slow_conv2d`` channels-last (1x1 stride 1 below 16 images on 1 thread, or one small image):
  grad_input per image MKL gemm('N', 'N', K, OH*OW, OC) into columns, added back by
  ``unfolded2d_acc`` (per input pixel its (oh, ow, kh, kw) terms in order onto zeros); grad_weight
  per image in order gemm('N', 'T', K, OC, OH*OW), beta 1; grad_bias ATen's sum over (N, OH, OW) of
  the channels-last grad_output.
- ``gemm:jit`` nspc for one group (gemm_convolution.cpp ``execute_backward_*_nspc``): grad_input
  sgemm('T', 'N', KH*KW*C, OH*OW, OC) into columns, ``col2im_dt``: zeros, then per (oh, ow, kh, kw) in
  order the column added (1x1 stride 1 without padding: straight into grad_input); grad_weight per
  image of a thread's share sgemm('N', 'N' or 'T', OC, KH*KW*C, OH*OW) onto the thread's sum (beta 0
  on its first image), with outer threading (OH*OW / threads < 256 and N > 1) the images split by
  balance211 and the sums added in thread order; grad_bias per channel and output row GCC's ``omp
  simd`` reduction: 4 lanes from 0 (column c into lane c % 4) over the first 4*(OW//4) columns, the
  rest into lane 0, the lanes added to the channel's sum in order.
- depthwise: ``jit_dw:sse41`` grad_input (per input one unfused chain over the taps) at any padding (its
  data init_conf has no boundary check: a kernel outside the input too, as ONEDNN_VERBOSE names it) and
  grad_weight (above) where its weights kernel accepts; else ``gemm:jit`` nspc with groups: per group
  and image a gemv 'T' over the im2col columns (grad_output strided by C).
- groups of several channels (not depthwise; ``_sse41_groups_backward``): ``gemm:jit`` nspc every pass,
  jit:sse41's whole blocks of 8 too: grad_input per group ``_gemm_data`` (init_conf's outer threading
  weighing every group's images), grad_weight per group and image one sgemm (``_groups_weights_gemm``:
  M the group's output channels, grad_output strided by OC; bwd_weights_balance's min(groups, threads)
  threads a group at a time, each group's images split between the rest, their sums added in order),
  grad_bias the lanes above. Measured on a Zen 5 (2 to 8 groups of 2 to 24 channels, kernels 1 to 7,
  strides 1 and 2, 1 to 3 images, 44 of 70 draws with a third over NaN, infinities, -0 and subnormals):
  208 of 210 passes bit for bit at 1, 2 and 4 threads, the other 2 the grad_weight of an unpadded 1x1 at
  stride 1 (one output channel a group on 2 and 4 threads), refused now.
- groups of several channels at AVX2 (``_avx2_groups_backward``): grad_input at stride 1 is
  ``brg_conv_bwd:avx2`` (+``brg_conv_fwd:avx2`` or +``brgconv_1x1:avx2``) group by group (ONEDNN_VERBOSE),
  each group one group's grad_input above (the swapped forward's ic blocks, or where W > OW the blocking
  its search keeps) with that group's channels; ATen's small-image rule keeps no group of several in
  slow_conv2d (a group's geometry that one group would take there runs brg_conv_bwd). Measured on a Zen 5
  (2 to 8 groups of 2 to 64 channels a side, kernels 1 to 7, strides 1 and 2, padding 0 to the kernel, 1
  to 4 images, a third with NaN payloads of both signs, infinities, -0 and subnormals; through the trace
  replay at 1, 2 and 4 threads): every grad_input it models bit for bit, none other. grad_weight and
  grad_bias are ``jit:avx2`` on nxc memory (aBCde8c8b weights) for every stride: where each group has whole
  blocks of 8 channels each side harness.impl.conv_grouped's blocked model (``_direct_groups_weights``: its
  cpu_reducer jobs counted over all the groups), measured at 1, 2 and 4 threads up to 24 channels a group,
  every one it models bit for bit, none other. grad_input at a stride (``_avx2_groups_strided_data``, the
  kernel oneDNN tries first that takes the group, as ONEDNN_VERBOSE named it for every measured draw):
  ``brgconv_strided:avx2`` over 8 output channels a group where its blocking search over all the groups
  finds a blocking (harness.impl.conv_grouped's model of it over NCHW groups, the same kernel: its search
  counts every group's work; one group's search had given other bits over 6 groups of 24 -> 20 channels,
  3x3 at stride 2), else ``jit:avx2`` group by group where its init_conf takes the group (equal strides,
  not fewer than 8 input channels a group under a kernel over 3 wide, its unroll checks; nxc's channel
  tails, not padded: conv_grouped ``_direct_groups_data``), else ``gemm:jit`` nspc per group with
  oneDNN's AVX2 sgemm (``_gemm_data``). Measured on a Zen 5 through the trace replay at 1, 2 and 4
  threads (3, 4 or 8 groups of 2 to 24 input and 2 to 64 output channels, kernels 1 to 5, strides 2,
  (2, 1) and (1, 2), 1 to 3 images, 156 of 330 draws over NaN payloads of both signs, infinities, -0
  and subnormals): 238 bit for bit, 92 refused, none other. Refused: grad_weight and grad_bias of other
  groups, over padding one group's jit:avx2 weights kernel declines, grad_input at a stride over 2 or on
  other thread counts (not measured), brgconv_strided's over NaN or infinite operands, a padded 1x1 at
  stride 1, over 64 channels a group, and what one group's grad_input refuses (a kernel side wholly in
  the padding).

Refused (``declines``): aarch64; at AVX-512 what the list above leaves out, among the gradients asked
(``mask``: a first layer's grad_weight and grad_bias where its grad_input would be refused); groups other than 1 and
depthwise but SSE4.1's groups of several channels and AVX2's grad_input above; slow_conv2d per group;
at AVX2 the cases named above, one group's grad_input, grad_weight and grad_bias past 2,048 channels
or 16 threads (not measured), depthwise past 16 threads, padding over 3 where a kernel side lies wholly
in it (others measured at 1, 2 and 4 threads: grad_weight had given other bits); at SSE4.1 jit_dw's
weights over 30 columns. One channel or one pixel of channels-last strides runs these kernels on acdb
memory (harness.impl.conv_nhwc).
"""

from __future__ import annotations

import ctypes
from functools import partial
from itertools import pairwise

import numpy as np

from harness.core.errors import ParityError
from harness.impl import conv, conv_grouped, conv_nhwc
from harness.impl import onednn_sgemm as og
from harness.impl._lib import aligned, f32, load, ptr
from harness.impl.profiles import KernelProfile

# the thread counts at which the depthwise backwards were measured (jit_dw, jit:avx2 and jit:avx512_core over
# groups): every one from 1 to 16
_DW_THREADS = tuple(range(1, 17))
# AVX2 grad_input of one group: the most threads and channels (either side) measured
_AVX2_DATA_THREADS = 16
_AVX2_DATA_CHANNELS = 2048
# jit_avx512_common_conv_bwd_weights_kernel_f32::max_ur_w: the most output columns one kernel call takes
_MAX_UR_W = 28
# AVX2's grad_weight and grad_bias of one group measured up to these thread and channel counts (ResNet-50's
# channels-last convolutions at 1 to 16 threads, 2,048 channels the most)
_AVX2_WEIGHTS_THREADS = 16
_AVX2_WEIGHTS_CHANNELS = 2048
# the strides measured at AVX2 (3 and 4 since, on a Zen 5 at 1, 2 and 4 threads: random channels-last
# convolutions' backward, 317 of 319 passes bit for bit, 2 refused, and transposed ones, harness.impl
# .conv_transpose's docstring; 0 other)
_AVX2_STRIDES = (1, 2, 3, 4)
# the thread counts measured at avx512_core for one group (depthwise and other groups: ``_DW_THREADS``)
_AVX512_THREADS = (1, 2, 4, 8, 16)

_I = ctypes.c_int64
_I32 = ctypes.c_int32
_P = ctypes.c_void_p
_LIB = None


def _lib() -> ctypes.CDLL:
    global _LIB
    if _LIB is None:
        lib = load("conv_nhwc")
        lib.nhwc_dw_weights.argtypes = [_I] * 12 + [_P, _P, _P, _I, _I, _I, _P, _P, _I32]
        lib.nhwc_dw_weights.restype = None
        _LIB = lib
    return _LIB


# ---------------------------------------------------- both levels: jit_dw's weights on nxc memory
def _dw_nxc_partition(g: conv.Geometry, c: int, threads: int, fast: bool, block: int = 8) -> tuple[int, int, int, int]:
    """(nthr_g, nthr_mb, nthr_oh, oh_blk_size) of jit_uni_dw_conv_bwd_weights_kernel's
    partition_nthr_nxc (prioritize_threading = true): channel blocks of ``block`` (16 at AVX-512),
    nb_ch_blocking = min(nb_ch, min(4 where is_fast_depthwise (``fast``: AVX2, AVX-512) else 1,
    max_reg_idx // (2 * KW))), max_reg_idx 31 at AVX-512, else 15."""
    nb_ch = -(-c // block)
    regs = 31 if block == 16 else 15
    ch_outer = -(-nb_ch // min(nb_ch, min(4 if fast else 1, regs // (2 * g.kw))))
    mb, oh = g.n, g.oh
    best_eff, best_imb = np.float32(0.0), np.float32(1.0)
    res = (1, 1, 1, oh)
    for cur_g in range(min(ch_outer, threads), 0, -1):
        avail_mb = threads // cur_g
        for cur_mb in range(min(mb, avail_mb), 0, -1):
            div_mb = avail_mb // cur_mb
            prev_under = False
            avail_oh = min(oh, div_mb)
            for oh_block in range(oh, 0, -1):
                g_blk, mb_blk, oh_blks = -(-ch_outer // cur_g), -(-mb // cur_mb), -(-oh // oh_block)
                cur_oh = min(avail_oh, oh_blks)
                eff = np.float32(cur_g * cur_mb * cur_oh) / np.float32(threads)
                if prev_under and avail_oh < oh_blks:
                    break
                imb_g = np.float32(abs(g_blk * cur_g - ch_outer)) / np.float32(ch_outer)
                imb_mb = np.float32(abs(mb_blk * cur_mb - mb)) / np.float32(mb)
                imb_oh = np.float32(abs(oh_block * cur_oh - oh)) / np.float32(oh)
                imb = np.float32(
                    imb_g * np.float32(mb * oh)
                    + imb_mb * np.float32(ch_outer * oh)
                    + imb_oh * np.float32(ch_outer * mb)
                )
                if best_eff <= eff:
                    if best_eff == eff and best_imb <= imb:
                        continue  # the C++ loop's continue: prev_under_blocked keeps its value
                    res = (cur_g, cur_mb, cur_oh, oh_block)
                    best_imb, best_eff = imb, eff
                prev_under = oh_block * cur_oh < oh
    return res


def _dw_ow_blocks(g: conv.Geometry) -> list[int]:
    """The column blocks of jit_uni_dw_conv_bwd_weights_kernel_f32's weights kernel, left to right
    (calculate_w_unrolling): the whole row up to max_unroll_w_ = 30 columns, past it blocks of
    block_size_ = 15 and the rest, the last block taking one more of 15 where the right padding
    reaches past the rest (r_pad > 0 and r_pad >= the rest, or no rest)."""
    if g.ow <= 30:
        return [g.ow]
    trips, tail = divmod(g.ow, 15)
    r_pad = max(0, conv._end_pad(g.pw, g.ow, g.w, g.sw, g.kw))
    if (tail == 0 and r_pad != 0) or (r_pad > 0 and r_pad >= tail):
        trips, tail = trips - 1, tail + 15  # trips >= 2 past 30 columns
    return [15] * trips + ([tail] if tail else [])


def _dw_nxc_weights(dy, x, g: conv.Geometry, c: int, threads: int, has_bias: bool, fused: bool, block: int = 8):
    """jit_dw's grad_weight and grad_bias under harness_nxc (see the module's docstring; ``fused``: AVX2
    and AVX-512; ``block``: its channel block, 16 at AVX-512). Per kernel call (an image's block of
    rows) the weights' chain takes the column blocks (``_dw_ow_blocks``) outermost, then the rows,
    then the block's columns; the bias's chain the rows, then the columns."""
    _nthr_g, nthr_mb, nthr_oh, oh_blk = _dw_nxc_partition(g, c, threads, fused, block)
    nb_oh = -(-g.oh // oh_blk)
    mb_parts = conv._balance211(g.n, nthr_mb)
    oh_parts = conv._balance211(nb_oh, nthr_oh)
    cols = np.cumsum([0, *_dw_ow_blocks(g)])
    blocks = []  # per ithr_block = ithr_mb * nthr_oh + ithr_oh: (the weights' pixels, the bias's) in order
    for im in range(nthr_mb):
        for io in range(nthr_oh):
            calls = [
                (b, range(blk * oh_blk, min(g.oh, (blk + 1) * oh_blk)))
                for b in range(mb_parts[im], mb_parts[im + 1])
                for blk in range(oh_parts[io], oh_parts[io + 1])
            ]
            wpix = [(b, r, q) for b, rows in calls for q0, q1 in pairwise(cols) for r in rows for q in range(q0, q1)]
            bpix = [(b, r, q) for b, rows in calls for r in rows for q in range(g.ow)]
            blocks.append(tuple(np.array(pix, np.int64).reshape(-1, 3) for pix in (wpix, bpix)))
    lib = _lib()
    gws, gbs = [], []
    for wpix, bpix in blocks:
        gw = np.zeros((c, 1, g.kh, g.kw), np.float32)
        gb = np.zeros(c, np.float32)
        lib.nhwc_dw_weights(g.n, c, g.h, g.w, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.ph, g.pw, ptr(dy), ptr(x),
                            ptr(wpix), len(wpix), 0, c, ptr(gw), ptr(gb), int(fused))  # fmt: skip
        if has_bias and g.ow > 30:  # the bias's chain in row order
            scratch = np.empty_like(gw)
            lib.nhwc_dw_weights(g.n, c, g.h, g.w, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.ph, g.pw, ptr(dy), ptr(x),
                                ptr(bpix), len(bpix), 0, c, ptr(scratch), ptr(gb), int(fused))  # fmt: skip
        gws.append(gw)
        gbs.append(gb)
    gw, gb = gws[0], gbs[0]
    thr_work = nthr_mb * nthr_oh
    for r in range(thr_work - 1):  # execute_reduction_nxc: buffer k holds thread block k + 1
        k = (r % nthr_mb) * nthr_oh + (r // nthr_mb) % nthr_oh
        gw = gw + gws[k + 1]
        gb = gb + gbs[k + 1]
    return gw, (gb if has_bias else None)


def _dw_reduction_nonfinite(dy, x, g: conv.Geometry, c: int, threads: int, mask, has_bias: bool) -> None:
    """ParityError where jit_dw:avx2's nxc reduction (more than one thread block) meets NaN or infinite
    operands of the weights' passes: which NaN execute_reduction_nxc keeps is not modelled (``measure_dw_nan.py``:
    2 of 40 draws at 2 and 8 threads gave other NaN bits; 40 of 40 on 1 and 16 threads bit for bit)."""
    _nthr_g, nthr_mb, nthr_oh, _ = _dw_nxc_partition(g, c, threads, True)
    nonfinite = (mask[1] and not np.isfinite(x).all()) or (
        (mask[1] or (mask[2] and has_bias)) and not np.isfinite(dy).all()
    )
    if nonfinite and nthr_mb * nthr_oh > 1:
        raise ParityError(
            "conv2d backward (channels-last): jit_dw:avx2's weights reduced over thread blocks with NaN or infinite "
            "operands (which NaN execute_reduction_nxc keeps) not modelled"
        )


# ------------------------------------------------------------------------------------ AVX2
def _avx2_kinds(x_shape, w_shape, stride, padding, groups: int, prof: KernelProfile,
                aten: bool = True) -> tuple[str, str]:  # fmt: skip
    """(backward data, backward weights) kernels torch runs, as named in ONEDNN_VERBOSE, or a name
    starting with ``decline:``; ``aten`` False: oneDNN's for one group whatever ATen's rule would keep (a
    group of several, ATen's small-image rule not taken)."""
    _n, c, h, wd = x_shape
    oc, cg, kh, kw = w_shape
    sh, sw = stride
    _ph, _pw = padding
    one = (kh, kw) == (1, 1)
    if groups == 1:
        if aten and conv.path(x_shape, w_shape, stride, padding, prof) == conv.THNN:
            return "thnn", "thnn"
        g = conv._geometry(x_shape, w_shape, stride, padding)
        if (sh, sw) != (1, 1):
            data = "brgconv_strided:avx2"
        elif one and (_ph, _pw) != (0, 0):  # brgconv_1x1 and jit_1x1 take no padding
            return "gemm:jit", "gemm:jit"
        elif one:
            data = "brg_conv_bwd:avx2+brgconv_1x1:avx2"
        elif _data_gemm_jit(g):
            data = f"decline:{_DATA_GEMM_JIT}"
        else:
            data = "brg_conv_bwd:avx2+brg_conv_fwd:avx2"
        if one and (sh, sw) == (1, 1):
            weights = "jit_1x1:avx2"
        elif one and (_ph, _pw) == (0, 0) and h % sh == 0 and wd % sw == 0:  # over the pixels rtus gathers
            weights = "jit_1x1:avx2" if c >= 8 else "decline:jit_1x1:avx2 on a strided 1x1 below 8 input channels"
        elif conv._avx2_weights_declines(g):
            weights = "gemm:jit"
        else:
            weights = "jit:avx2"
        return data, weights
    if not (groups == c == oc and cg == 1):
        return ("decline:groups of several channels",) * 2
    if conv_grouped._thnn_per_group(x_shape, w_shape, stride, prof):
        return ("decline:ATen's slow_conv2d per group on channels-last memory",) * 2
    g = conv_grouped._group_geometry(x_shape, w_shape, stride, padding, groups)
    if conv_grouped.dw_weights_declines(g) and (c == 3 or conv._avx2_weights_declines(g)):
        # ONEDNN_VERBOSE: gemm:jit (weights decab) for 3 channels, every kernel, stride, padding and width probed
        weights = "gemm:jit"
    elif conv_grouped.dw_weights_declines(g):
        weights = "jit:avx2"
    else:
        weights = "jit_dw:avx2"
    return "jit_dw:avx2", weights


def _avx2_declines(x_shape, w_shape, stride, padding, groups: int, profile: KernelProfile,
                   mask: tuple[bool, bool, bool] = (True, True, True), aten: bool = True) -> str:  # fmt: skip
    """ "" where ``_avx2_backward`` models the case (the gradients ``mask`` asks: grad_input,
    grad_weight, grad_bias), else a one-line reason; ``aten`` as ``_avx2_kinds``'s."""
    x_shape, w_shape = tuple(int(v) for v in x_shape), tuple(int(v) for v in w_shape)
    stride, padding = tuple(int(v) for v in stride), tuple(int(v) for v in padding)
    _n, _c, h, wd = x_shape
    _oc, _cg, kh, kw = w_shape
    if aten and groups == 1 and conv.path(x_shape, w_shape, stride, padding, profile) == conv.THNN:
        return ""  # ATen's slow_conv2d, as at SSE4.1 (MKL's gemms and ATen's sum at this level)
    if any(s not in _AVX2_STRIDES for s in stride):
        return "stride outside the measured range"
    if max(padding) > 3 and conv._kernel_outside_src(conv._geometry((1, 1, h, wd), (1, 1, kh, kw), stride, padding)):
        return "padding over 3 with a kernel side inside the padding not measured"
    oh, ow = (h + 2 * padding[0] - kh) // stride[0] + 1, (wd + 2 * padding[1] - kw) // stride[1] + 1
    if oh < 1 or ow < 1:
        return "empty output"
    data, weights = _avx2_kinds(x_shape, w_shape, stride, padding, groups, profile, aten)
    if mask[0]:
        why = _avx2_data_declines(x_shape, w_shape, stride, padding, groups, profile, data)
        if why:
            return why
    if mask[1] or mask[2]:
        return _avx2_weights_declines(x_shape, w_shape, stride, padding, groups, profile, weights)
    return ""


def _avx2_data_declines(x_shape, w_shape, stride, padding, groups: int, profile: KernelProfile, data: str) -> str:
    """ "" where ``_avx2_backward`` models grad_input, run by oneDNN's ``data`` (``_avx2_kinds``), else
    a one-line reason. One group: up to ``_AVX2_DATA_THREADS`` threads and ``_AVX2_DATA_CHANNELS``
    channels a side (measured), brg_conv_bwd where its forward's ic block is known (``_avx2_data_blocks``)."""
    if groups != 1:
        return _dw_declines(profile.threads, data)
    if profile.threads > _AVX2_DATA_THREADS:
        return f"grad_input on {profile.threads} threads not measured (1 to {_AVX2_DATA_THREADS})"
    if max(x_shape[1], w_shape[0]) > _AVX2_DATA_CHANNELS:
        return f"grad_input past {_AVX2_DATA_CHANNELS} channels a side not measured"
    wd, kw = x_shape[3], w_shape[3]
    if data.startswith("decline:"):
        return data[len("decline:") :]
    ow = (wd + 2 * padding[1] - kw) // stride[1] + 1
    if data == "brg_conv_bwd:avx2+brg_conv_fwd:avx2" and wd > ow:  # the blocking init_conf's search keeps
        if _ker_search_data(conv._geometry(x_shape, w_shape, stride, padding), profile) is None:
            return (
                "brg_conv_bwd:avx2's grad_input where the forward's row outgrows its input (W > OW) with the batch's "
                "weights over its L2 (kw_block 1) not modelled"
            )
        return ""
    if data.startswith("brg_conv_bwd:avx2") or data == "brgconv_strided:avx2":
        g = conv._geometry(x_shape, w_shape, stride, padding)
        if min(g.oh + 2 * max(0, g.kh - 1 - g.ph) - g.kh, g.ow + 2 * max(0, g.kw - 1 - g.pw) - g.kw) < 0:
            return (  # the swapped forward _avx2_data_blocks reads its channel blocks from has no output
                f"{data.split('+')[0]}'s grad_input where the {g.kh}x{g.kw} kernel outgrows grad_output's {g.oh}x"
                f"{g.ow} padded by K - 1 - P (its forward's channel blocks not derived) not modelled"
            )
        blocks = _avx2_data_blocks(g, profile)
        if len(blocks) > 1:  # brgconv_strided: 2 draws of a 5x5 kernel past 320 output channels gave other bits
            return (
                f"{data.split('+')[0]}'s grad_input over {w_shape[0]} output channels (ic blocks of "
                f"{' or '.join(map(str, sorted(blocks)))} by the channel block its forward's search picks) not modelled"
            )
    return ""


def _avx2_data_blocks(g: conv.Geometry, profile: KernelProfile) -> set[int]:
    """The blocks of output channels of brg_conv_bwd:avx2's grad_input (stride 1): the ic blocks of the
    forward it runs (grad_output's OC channels in, C out, the taps inverted, padding K - 1 - P;
    conv_nhwc ``_avx2_ic_blocks``), one per output-channel block its search may take."""
    pad = (max(0, g.kh - 1 - g.ph), max(0, g.kw - 1 - g.pw))
    swapped = conv._geometry((g.n, g.oc, g.oh, g.ow), (g.c, g.oc, g.kh, g.kw), (1, 1), pad)
    return conv_nhwc._avx2_ic_blocks(swapped, profile)


def _avx2_weights_declines(x_shape, w_shape, stride, padding, groups: int, profile: KernelProfile,
                           weights: str) -> str:  # fmt: skip
    """ "" where ``_avx2_backward`` models grad_weight and grad_bias, run by oneDNN's ``weights``
    (``_avx2_kinds``), else a one-line reason."""
    threads = profile.threads
    if groups != 1:
        return _dw_declines(threads, weights)
    if threads > _AVX2_WEIGHTS_THREADS or max(x_shape[1], w_shape[0]) > _AVX2_WEIGHTS_CHANNELS:
        return (
            f"grad_weight past {_AVX2_WEIGHTS_THREADS} threads or {_AVX2_WEIGHTS_CHANNELS} channels not measured "
            f"({threads} threads, {x_shape[1]} -> {w_shape[0]} channels)"
        )
    if weights.startswith("decline:"):
        return weights[len("decline:") :]
    return ""


def _dw_declines(threads: int, kind: str) -> str:
    """ "" where a depthwise pass run by oneDNN's ``kind`` (``_avx2_kinds``, or jit_dw:avx512_core) is
    modelled at ``threads``, else a one-line reason: jit_dw's grad_input and its weights at any channel
    count and row width (``_dw_nxc_weights``), jit:avx2's or jit:avx512_core's weights over groups
    where jit_dw's decline, measured at 1 to 16 threads (``_DW_THREADS``)."""
    if kind.startswith("decline:"):
        return kind[len("decline:") :]
    if threads not in _DW_THREADS:
        return f"depthwise at {threads} threads not measured (1 to 16)"
    return ""


def _brg_bwd_data(dy: np.ndarray, w: np.ndarray, g: conv.Geometry, oc_block: int = 0) -> np.ndarray:
    """grad_input of brg_conv_bwd (stride 1, the forward's row within its input: one brgemm call per
    block of ``oc_block`` output channels, all of them where 0): per block one fused chain from 0 over
    every tap (row by row, from the last: the forward's taps inverted), at a tap the block's output
    channels, the blocks' sums added in order (csrc/conv.c conv_bwd_data_terms)."""
    kh, kw, oc = g.kh, g.kw, g.oc
    oc_block = oc_block or oc
    chains = [
        [(o, kh - 1 - a, kw - 1 - b) for a in range(kh) for b in range(kw) for o in range(o0, min(oc, o0 + oc_block))]
        for o0 in range(0, oc, oc_block)
    ]
    terms = [t for i, chain in enumerate(chains) for t in ([(-1, 0, 0)] if i else []) + chain]
    t = np.array(terms, np.int64).reshape(-1, 3)
    gx = np.empty((g.n, g.c, g.h, g.w), np.float32)
    conv._lib().conv_bwd_data_terms(*g, ptr(dy), ptr(w), ptr(gx), ptr(t), len(t), 1)
    return gx


def _jit_1x1_weights(
    dy: np.ndarray, x: np.ndarray, g: conv.Geometry, threads: int, mask: tuple[bool, bool]
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(grad_weight, grad_bias), None where ``mask`` (weights, bias) leaves one out, of jit_1x1:avx2 on
    nhwc memory: conv.py's model of the kernel with its nxc blocking (``conv.avx2_1x1_weight_split``,
    ``conv.avx2_1x1_bias_parts``). At a stride oneDNN's rtus first gathers the input's pixels the
    stride picks (jit_uni_1x1_conv_utils.hpp rtus_prepare): the kernel and its blocking then see a
    stride-1 convolution of an OH x OW input."""
    if (g.sh, g.sw) != (1, 1):
        x = np.ascontiguousarray(x[:, :, :: g.sh, :: g.sw][:, :, : g.oh, : g.ow])
        g = conv._geometry(x.shape, (g.oc, g.c, 1, 1), (1, 1), (0, 0))
    gw = gb = None
    if mask[0]:
        gw = np.empty((g.oc, g.c, 1, 1), np.float32)
        parts, runs = conv.avx2_1x1_weight_split(g, threads, True)
        conv._run_weights(dy, x, gw, g, parts, runs, True)
        conv.avx2_1x1_reduced(gw, parts)
    if mask[1]:
        gb = conv._bias_grad(dy, conv.avx2_1x1_bias_parts(g, threads, True))
    return gw, gb


def _avx2_backward(dy, x, w, stride, padding, groups: int, has_bias: bool, profile: KernelProfile, mask,
                   aten: bool = True):  # fmt: skip
    """(grad_input, grad_weight, grad_bias) at AVX2 (``_avx2_declines`` already passed; ``aten`` as
    ``_avx2_kinds``'s)."""
    prof, threads = profile, profile.threads
    data, weights = _avx2_kinds(x.shape, w.shape, stride, padding, groups, profile, aten)
    if data == "thnn":
        return _thnn_backward(dy, x, w, conv._geometry(x.shape, w.shape, stride, padding), has_bias, profile, mask)
    gx = gw = gb = None
    if groups == 1:
        g = conv._geometry(x.shape, w.shape, stride, padding)
        if mask[0]:
            searched = _ker_search_data(g, profile) if data == "brg_conv_bwd:avx2+brg_conv_fwd:avx2" else None
            if searched is not None:  # W > OW: exec_vpad or exec_base by the blocking its search keeps
                gx = _brg_bwd_blocked(dy, w, g, *searched)
            elif data in ("brg_conv_bwd:avx2+brg_conv_fwd:avx2", "brg_conv_bwd:avx2+brgconv_1x1:avx2"):
                gx = _brg_bwd_data(dy, w, g, _avx2_data_blocks(g, profile).pop())
            elif data == "gemm:jit":  # a padded 1x1: gemm:jit nspc as at SSE4.1, oneDNN's AVX2 sgemm
                gx = _gemm_data(dy, w, g, threads, og.AVX2)
            else:  # brgconv_strided:avx2
                if not (np.isfinite(dy).all() and np.isfinite(w).all()):
                    raise ParityError(
                        "conv2d backward (channels-last): brgconv_strided:avx2's grad_input over NaN or infinite "
                        "operands (NaNs where the model has numbers: its padded taps, inf * 0) not modelled"
                    )
                gx = conv.conv2d_backward(dy, x, w, stride, padding, False, prof, (True, False, False))[0]
        if weights == "jit_1x1:avx2":
            asked = mask[1] or (mask[2] and has_bias)
            if asked and ((mask[1] and not np.isfinite(x).all()) or not np.isfinite(dy).all()):
                raise ParityError(
                    "conv2d backward (channels-last): jit_1x1:avx2's grad_weight and grad_bias over NaN or "
                    "infinite operands (which NaN its reductions keep, its sign, not modelled)"
                )
            gw, gb = _jit_1x1_weights(dy, x, g, threads, (mask[1], mask[2] and has_bias))
        elif weights == "gemm:jit":  # gemm:jit nspc as at SSE4.1, oneDNN's AVX2 sgemm
            asked = mask[1] or (mask[2] and has_bias)
            if asked and ((mask[1] and not np.isfinite(x).all()) or not np.isfinite(dy).all()):
                raise ParityError(
                    "conv2d backward (channels-last): gemm:jit's grad_weight and grad_bias at AVX2 over NaN or "
                    "infinite operands (which NaN its sgemm and its lanes keep, its sign, not modelled)"
                )
            gw = _gemm_weights(dy, x, g, threads, og.AVX2) if mask[1] else None
            gb = _gemm_bias(dy) if mask[2] and has_bias else None
        elif mask[1] or (mask[2] and has_bias):
            _, gw, gb = conv.conv2d_backward(dy, x, w, stride, padding, has_bias, prof, (False, mask[1], mask[2]))
    else:
        if mask[0]:
            gx = conv_grouped.conv2d_backward(dy, x, w, stride, padding, groups, False, prof, (True, False, False))[0]
        if mask[1] or (mask[2] and has_bias):
            g = conv_grouped._group_geometry(x.shape, w.shape, stride, padding, groups)
            if weights == "jit:avx2":  # over C groups of one channel (aBCde8c8b), as over blocked memory
                _, gw, gb = conv_grouped._direct_groups_weights(dy, x, g, groups, has_bias, prof, mask)
            elif weights == "gemm:jit":  # gemm:jit nspc over the groups as at SSE4.1, oneDNN's AVX2 sgemm
                gw = _dw_weights_gemm(dy, x, g, threads, og.AVX2) if mask[1] else None
                gb = _gemm_bias(dy) if mask[2] and has_bias else None
            else:
                _dw_reduction_nonfinite(dy, x, g, x.shape[1], threads, mask, has_bias)
                gw, gb = _dw_nxc_weights(dy, x, g, x.shape[1], threads, has_bias and mask[2], True)
    return gx, (gw if mask[1] else None), (gb if (mask[2] and has_bias) else None)


# ---------------------------------------------------------------------------------- AVX-512
def _avx512_data_blocks(g: conv.Geometry, profile: KernelProfile) -> set[int]:
    """The output-channel blocks of brg_conv_bwd:avx512_core+brgconv_1x1:avx512_core's grad_input: the
    ic blocks of the forward it runs (grad_output's OC channels in, C out; conv_nhwc.avx512_ic_blocks)."""
    swapped = conv._geometry((g.n, g.oc, g.oh, g.ow), (g.c, g.oc, 1, 1), (1, 1), (0, 0))
    return conv_nhwc.avx512_ic_blocks(swapped, profile)


def _avx512_kxk_data(g: conv.Geometry) -> conv.Geometry | None:
    """The forward brg_conv_bwd:avx512_core+brg_conv_fwd:avx512_core runs for a kernel over 1x1 at stride
    1 where the forward's row fits its input (W <= OW, ker_vpad) and takes its taps in one brgemm call:
    grad_output's OC channels in, C out, the taps inverted, padding K - 1 - P; None elsewhere (W > OW:
    ``_ker_search_data``)."""
    pad = (g.kh - 1 - g.ph, g.kw - 1 - g.pw)
    if (g.sh, g.sw) != (1, 1) or min(pad) < 0:
        return None
    if g.w > g.ow:  # ker_base or ker_vpad by the search's blocking: ``_ker_search_data``
        return None
    swapped = conv._geometry((g.n, g.oc, g.oh, g.ow), (g.c, g.oc, g.kh, g.kw), (1, 1), pad)
    return swapped if conv_nhwc._one_call(swapped) else None


def _ker_calls(fg: conv.Geometry, ow_block: int, col0: int) -> list[tuple[list[int], bool]]:
    """ker_base's calls' forward taps kw for the ow block starting at ``col0``, whether each is the call
    over the taps valid for the whole block (get_kw_range): the taps valid for part of the block left
    of those, one call each; those, one call (kw_block = KW); the rest right of them, one call each."""
    m = min(ow_block, fg.ow - col0)
    counts = [sum(1 for o in range(col0, col0 + m) if 0 <= o - fg.pw + b < fg.w) for b in range(fg.kw)]
    valid = [b for b in range(fg.kw) if counts[b]]
    full = [b for b in valid if counts[b] == m]
    if not full:
        return [([b], False) for b in valid]
    left = [([b], False) for b in valid if b < full[0]]
    return left + [(full, True)] + [([b], False) for b in valid if b > full[-1]]


def _base_calls(kw_calls: list[tuple[list[int], bool]], rows: list[int], kh_block: int, kh: int,
                kw: int) -> list[tuple[list[int], list[int]]]:  # fmt: skip
    """ker_base's calls as (forward kernel rows, kw) for an element whose valid kernel rows are ``rows``:
    the left partial kw, per block of rows (kh_block_pad: all where KW >= KH, else one) each kw; the
    full call per block of ``kh_block`` rows; the right partial kw as the left."""
    pad_step = len(rows) if kw >= kh else 1
    full_step = len(rows) if kh_block == kh else 1
    out: list[tuple[list[int], list[int]]] = []
    i = 0
    while i < len(kw_calls):
        if kw_calls[i][1]:
            out += [(rows[r : r + full_step], kw_calls[i][0]) for r in range(0, len(rows), full_step)]
            i += 1
            continue
        j = i
        while j < len(kw_calls) and not kw_calls[j][1]:
            j += 1
        out += [(rows[r : r + pad_step], c) for r in range(0, len(rows), pad_step) for c, _ in kw_calls[i:j]]
        i = j
    return out


def _brg_bwd_blocked(dy: np.ndarray, w: np.ndarray, g: conv.Geometry, vpad: bool, blocking: conv_nhwc.FwdBlocking,
                     ic_block: int) -> np.ndarray:  # fmt: skip
    """grad_input of brg_conv_bwd (avx512_core or AVX2) at stride 1 where the forward's row outgrows its input
    (W > OW), by the blocking its search keeps (``conv_nhwc._fwd_blocking``): per input element (the forward's
    output) and ic block (``ic_block`` of grad_output's channels, in order) the brgemm calls covering it,
    each a fused chain from 0 over its valid taps (backward tap (KH - 1 - a, KW - 1 - b) of forward tap
    (a, b)), at a tap the block's channels, added in order. ker_vpad (``vpad``): per block of
    ``kh_block`` valid kernel rows one call over every kw. ker_base: per ow block the calls of
    ``_ker_calls``, each per block of valid kernel rows (all of them, or one where a call's kw are
    fewer than KH: kh_block_pad); an element its block's first call misses starts from the zeros the
    kernel writes there (0 + its first chain)."""
    kh, kw, oc = g.kh, g.kw, g.oc
    fg = conv._geometry((g.n, oc, g.oh, g.ow), (g.c, oc, kh, kw), (1, 1), (kh - 1 - g.ph, kw - 1 - g.pw))
    lp_h, lp_w = fg.ph, fg.pw
    gx = np.empty((g.n, g.c, g.h, g.w), np.float32)
    spans: dict[tuple, tuple] = {}  # (key, first column, end column) -> (first row, end row), rows merged
    rects: list[tuple] = []  # (key, y0, y1, x0, x1): the elements of one call pattern, computed together
    for yy in range(g.h):
        rows = [a for a in range(kh) if 0 <= yy - lp_h + a < g.oh]
        keys = []
        for xx in range(g.w):
            cols = [b for b in range(kw) if 0 <= xx - lp_w + b < g.ow]
            if vpad:
                calls = [(rows[i : i + blocking.kh_block], cols) for i in range(0, len(rows), blocking.kh_block)]
                missed = False
            else:
                col0 = xx // blocking.ow_block * blocking.ow_block
                calls = _base_calls(_ker_calls(fg, blocking.ow_block, col0), rows, blocking.kh_block, kh, kw)
                missed = not set(calls[0][1]) & set(cols)
                calls = [(r, [b for b in c if b in cols]) for r, c in calls]
                calls = [(r, c) for r, c in calls if r and c]
            keys.append((missed, tuple((tuple(r), tuple(c)) for r, c in calls)))
        x0 = 0
        for xx in range(1, g.w + 1):
            if xx == g.w or keys[xx] != keys[x0]:
                run = (keys[x0], x0, xx)
                if run in spans and spans[run][1] == yy:
                    spans[run] = (spans[run][0], yy + 1)
                else:
                    if run in spans:
                        rects.append((*run[:1], *spans[run], *run[1:]))
                    spans[run] = (yy, yy + 1)
                x0 = xx
    rects += [(run[0], *rows_, run[1], run[2]) for run, rows_ in spans.items()]
    terms: dict[tuple, np.ndarray] = {}
    blocks = [range(o0, min(oc, o0 + ic_block)) for o0 in range(0, oc, ic_block)]
    for key, y0, y1, x0, x1 in rects:
        if key not in terms:
            missed, calls = key
            chains = [[]] if missed else []
            chains += [
                [(o, kh - 1 - a, kw - 1 - b) for a in r for b in c for o in os_] for os_ in blocks for r, c in calls
            ]
            flat = [t for i, ch in enumerate(chains) for t in ([(-1, 0, 0)] if i else []) + ch]
            terms[key] = np.array(flat, np.int64).reshape(-1, 3)
        t = terms[key]
        part = np.empty((g.n, g.c, y1 - y0, x1 - x0), np.float32)  # the rectangle as an input of its own
        conv._lib().conv_bwd_data_terms_x86(g.n, g.c, y1 - y0, x1 - x0, oc, kh, kw, g.oh, g.ow, 1, 1, g.ph + y0,
                                            g.pw + x0, ptr(dy), ptr(w), ptr(part), ptr(t), len(t))  # fmt: skip
        gx[:, :, y0:y1, x0:x1] = part
    return gx


def _ker_search_data(g: conv.Geometry, profile: KernelProfile) -> tuple[bool, conv_nhwc.FwdBlocking, int] | None:
    """brg_conv_bwd's grad_input (avx512_core or AVX2) of a kernel over 1x1 at stride 1 where the forward's
    row outgrows its input (W > OW), as init_conf's search sets it: (exec_vpad, where its search's ow block
    fits the forward's input; the blocking kept; the ic block of grad_output's channels). None where the
    model does not hold: kw_block 1 (the batch's weights over L2, not measured)."""
    if (g.sh, g.sw) != (1, 1) or g.w <= g.ow:
        return None
    fg = conv._geometry((g.n, g.oc, g.oh, g.ow), (g.c, g.oc, g.kh, g.kw), (1, 1), (g.kh - 1 - g.ph, g.kw - 1 - g.pw))
    lv = conv_nhwc._search_level(fg, profile)
    if 4 * fg.c * 4 * lv.simd * fg.kw >= lv.l2:  # iterate_ker_block's kw_block: KW while the weights fit L2
        return None
    searched = conv_nhwc.exec_search(fg, profile)
    return None if searched is None else (*searched, searched[1].ic_block)


def _avx512_strided_data(g: conv.Geometry, profile: KernelProfile) -> bool:
    """Whether a strided kernel over 1x1 runs brgconv_strided:avx512_core for grad_input (its blocking
    search finds one: conv.py ``direct_kernels``), whose model is conv.py's (16 floats a vector)."""
    return (g.sh, g.sw) != (1, 1) and conv.direct_kernels(g, conv.AVX512, profile)[1] == conv.BRG_STRIDED


def _expl_row_calls(g: conv.Geometry) -> list[int]:
    """The first output column of each kernel call per output row of jit:avx512_core's backward weights
    on nxc memory with expl_bcast (jit_avx512_common_conv_kernel.cpp: compute_oh_step_unroll_ow*, one call
    a row up to max_ur_w = 28 columns; compute_oh_step_common past that: calls of 28 columns, the tail
    merged into the last or the row halved where the right padding reaches into it)."""
    if g.ow <= _MAX_UR_W:
        return [0]
    ur = _MAX_UR_W
    trips, tail = divmod(g.ow, ur)
    r_pad = max(0, conv._end_pad(g.pw, g.ow, g.w, g.sw, g.kw))
    if (tail == 0 and r_pad != 0) or (r_pad > 0 and r_pad >= tail):
        if trips > 1:
            trips, tail = trips - 1, tail + ur
        else:
            tail, ur = tail + ur - ur // 2, ur // 2
    return [ur * t for t in range(trips)] + ([ur * trips] if tail else [])


def _avx512_nxc_weights(dy, x, g: conv.Geometry, threads: int, mask: tuple[bool, bool],
                        dil: tuple[int, int] = (1, 1)):  # fmt: skip
    """(grad_weight, grad_bias), None where ``mask`` (weights, bias) leaves one out, of jit:avx512_core's
    backward weights on nxc memory: the images' harness (init_conf never takes the 2-D one on nxc), the
    images split by its balance (``conv._avx512_balance``), per thread one fused chain over its (image,
    row, column); with expl_bcast (stride 1 along the row, 16 input channels or more: not its
    first-convolution kernel) each kernel call's chain from 0 (``_expl_row_calls``), added to the
    thread's sum; the threads' sums added in order. grad_bias its bias reducer (``conv._bias_parts``).
    ``dil``: the taps that far apart (harness.impl.conv_nhwc_dilated): no kernel calls within a part
    (measured on a Zen 5, weights_try.py: one chain a part gave torch's bits in 61 of 61 dilated draws
    at 1, 2 and 4 threads, expl_bcast's row calls other bits in 23 of the 25 of 16 or more channels at
    stride 1)."""
    gw = gb = None
    if mask[0]:
        ohw = g.oh * g.ow
        parts = [b * ohw for b in conv._balance211(g.n, conv._avx512_balance(threads, g, nxc=True)[0])]
        runs = set(parts[:-1])
        if g.sw == 1 and g.c >= 16 and dil == (1, 1):  # expl_bcast (dilated: one chain a part, measured)
            calls = _expl_row_calls(g)
            runs |= {u * g.ow + c0 for u in range(g.n * g.oh) for c0 in calls}
        gw = np.empty((g.oc, g.c, g.kh, g.kw), np.float32)
        conv._run_weights(dy, x, gw, g, parts, sorted(runs), True, dil)
    if mask[1]:
        gb = conv._bias_grad(dy, conv._bias_parts(conv.AVX512, g, threads, nxc=True))
    return gw, gb


def _avx512_group_image_threads(g1: conv.Geometry, c: int, threads: int) -> int:
    """nthr_mb of jit:avx512_core's backward weights over ``c`` groups of one channel on nxc memory
    (jit_avx512_common_conv_bwd_weights_kernel_f32::balance): fewer threads than groups, each group one
    thread (nthr_g = threads); else nthr_g = c and the images' split over threads // c threads, one
    block of channels each side, so the memory cost falls with every thread added up to the images
    (the last of equal costs kept): min(threads // c, N), never above half the threads for c >= 2."""
    return 1 if threads < c else min(threads // c, g1.n)


def _avx512_group_weights(dy, x, g1: conv.Geometry, threads: int, mask: tuple[bool, bool]):
    """(grad_weight, grad_bias), None where ``mask`` (weights, bias) leaves one out, of jit:avx512_core's
    backward weights over C groups of one channel on nxc memory (weights aBCde16c16b; where jit_dw's
    weights kernel declines: a kernel wider than 3, ...; ``g1`` one group's geometry): its balance
    (``_avx512_group_image_threads``) splits the images by balance211 into nthr_mb parts (one part
    where there are fewer threads than groups), per channel and part one fused chain over (image, row,
    column); with expl_bcast (stride 1 along the row: groups are never its first-convolution kernel)
    each kernel call's chain from 0 (``_expl_row_calls``) added; the parts' sums added in order
    (reduce_diff_weights). grad_bias per channel one chain of additions over (image, pixel) of each of
    its bias reducer's parts (reduce_balancer_t over C jobs of 16 channels on nthr_mb * C threads),
    added in order."""
    c = x.shape[1]
    ohw = g1.oh * g1.ow
    nthr_mb = _avx512_group_image_threads(g1, c, threads)
    parts = [b * ohw for b in conv._balance211(g1.n, nthr_mb)]
    runs = set(parts[:-1])
    if g1.sw == 1:
        calls = _expl_row_calls(g1)
        runs |= {u * g1.ow + c0 for u in range(g1.n * g1.oh) for c0 in calls}
    gw = gb = None
    if mask[0]:
        gw = np.empty((c, 1, g1.kh, g1.kw), np.float32)
        one = np.empty((1, 1, g1.kh, g1.kw), np.float32)
        for ch in range(c):
            dyc, xc = np.ascontiguousarray(dy[:, ch : ch + 1]), np.ascontiguousarray(x[:, ch : ch + 1])
            conv._run_weights(dyc, xc, one, g1, parts, sorted(runs), True)
            gw[ch] = one[0]
    if mask[1]:
        nthr = nthr_mb * min(threads, c)
        per_group = conv._reducer_threads(nthr, 16, c, g1.n, nthr * 6400)
        gb = conv._bias_grad(dy, [b * ohw for b in conv._balance211(g1.n, per_group)])
    return gw, gb


def _avx512_1x1_kinds(g: conv.Geometry, profile: KernelProfile) -> tuple[str, str]:
    """(grad_input, grad_weight and grad_bias) kernels of a 1x1 convolution at a stride or with padding at
    avx512_core on nxc memory (ONEDNN_VERBOSE): grad_input ``gemm:jit`` at stride 1 (brg_conv_bwd and
    brgconv_1x1 take no padding), else brgconv_strided:avx512_core ("" where its blocking search declines);
    the weights jit_1x1:avx512_core where it takes the convolution (no padding, the stride dividing the
    input: its reduce-to-unit-stride copy), else jit:avx512_core on nxc unpadded, gemm:jit padded."""
    data = conv.BRG_STRIDED if (g.sh, g.sw) != (1, 1) else "gemm:jit"
    if data == conv.BRG_STRIDED and conv._strided_declines(g, profile, 16):
        data = ""
    if conv._one_by_one(g):
        return data, "jit_1x1:avx512_core"
    return data, ("gemm:jit" if conv._avx512_weights_declines(g, nxc=True) else conv.AVX512)


def _avx512_1x1_strided(dy, x, w, g: conv.Geometry, has_bias: bool, profile: KernelProfile, mask):
    """(grad_input, grad_weight, grad_bias) of a 1x1 convolution at a stride or with padding at avx512_core
    (``_avx512_1x1_kinds``): brgconv_strided's grad_input conv.py's model (16 floats a vector), gemm:jit's
    passes as at AVX2 with oneDNN's AVX-512 sgemm, jit_1x1's weights conv.py's model of the kernel with its
    nxc blocking over the strided pixels (``conv._avx512_1x1_weight_split``), jit:avx512_core's
    ``_avx512_nxc_weights``."""
    data, weights = _avx512_1x1_kinds(g, profile)
    threads = profile.threads
    gx = gw = gb = None
    if mask[0] and data == conv.BRG_STRIDED:
        if not (np.isfinite(dy).all() and np.isfinite(w).all()):
            raise ParityError(
                "conv2d backward (channels-last): brgconv_strided:avx512_core's grad_input over NaN or infinite "
                "operands (which NaN it gives, or a NaN where the model has a number, not modelled)"
            )
        gx = conv.brgconv_strided_data(dy, w, g, 16, profile)
    elif mask[0]:
        gx = _gemm_data(dy, w, g, threads, og.AVX512)
    bias = mask[2] and has_bias
    if weights == "jit_1x1:avx512_core":
        if mask[1]:
            gw = np.empty((g.oc, g.c, 1, 1), np.float32)
            conv._run_weights(dy, x, gw, g, *conv._avx512_1x1_weight_split(g, threads, profile.l1_per_core, True), True)
        gb = conv._bias_grad(dy, conv._bias_parts(weights, g, threads)) if bias else None
    elif weights == conv.AVX512:
        gw, gb = _avx512_nxc_weights(dy, x, g, threads, (mask[1], bias))
    else:
        gw = _gemm_weights(dy, x, g, threads, og.AVX512) if mask[1] else None
        gb = _gemm_bias(dy) if bias else None
    return gx, gw, gb


def _avx512_declines(x_shape, w_shape, stride, padding, groups: int, profile: KernelProfile,
                     mask: tuple[bool, bool, bool] = (True, True, True)) -> str:  # fmt: skip
    """ "" where ``_avx512_backward`` models the case (the gradients ``mask`` asks), else a one-line reason."""
    if groups == 1 and conv.path(x_shape, w_shape, stride, padding, profile) == conv.THNN:
        return ""  # ATen's slow_conv2d, as at SSE4.1 (MKL's gemms and ATen's sum at this level)
    if groups != 1:
        g = conv_grouped._group_geometry(x_shape, w_shape, stride, padding, groups)
        wide = conv_grouped.dw_weights_declines(g)  # jit:avx512_core over groups (aBCde16c16b)
        if wide and (mask[1] or mask[2]) and conv._avx512_weights_declines(g, nxc=True):  # jit:avx2's or gemm:jit's
            why = _avx2_declines(
                x_shape, w_shape, stride, padding, groups, conv_nhwc.avx2_profile(profile), (False, *mask[1:])
            )
            if why:
                return why
        return _dw_declines(profile.threads, "jit_dw:avx512_core")
    if profile.threads not in _AVX512_THREADS:
        return f"{profile.threads} threads at avx512_core not measured (1, 2, 4, 8 and 16)"
    g = conv._geometry(x_shape, w_shape, stride, padding)
    if conv._ip_convolution(g):
        return "oneDNN's ip_convolution at avx512_core (ip:any+brg_matmul: an inner product) not modelled"
    if (g.kh, g.kw) != (1, 1):
        swapped = _avx512_kxk_data(g)
        if mask[0] and _data_gemm_jit(g):
            return _DATA_GEMM_JIT
        searched = _ker_search_data(g, profile) if mask[0] and swapped is None else None
        if mask[0] and swapped is None and searched is None and not _avx512_strided_data(g, profile):
            return (
                f"grad_input of a {g.kh}x{g.kw} kernel at stride {(g.sh, g.sw)}, padding {(g.ph, g.pw)} on a "
                f"{g.h}x{g.w} input at avx512_core (brg_conv_bwd where the row outgrows the forward's output, "
                "W > OW: the batch's weights over its L2, kw_block 1; strided where brgconv_strided declines) not "
                "modelled"
            )
        blocks = conv_nhwc.avx512_ic_blocks(swapped, profile) if mask[0] and swapped else set()
        if len(blocks) > 1:
            return (
                f"brg_conv_bwd:avx512_core's grad_input over {g.oc} output channels (ic blocks of "
                f"{' or '.join(map(str, sorted(blocks)))} by the channel block its search picks) not modelled"
            )
        if (mask[1] or mask[2]) and conv._avx512_weights_declines(g, nxc=True):  # jit:avx2's or gemm:jit's
            return _avx2_declines(
                x_shape, w_shape, stride, padding, 1, conv_nhwc.avx2_profile(profile), (False, *mask[1:])
            )
        return ""
    if tuple(stride) != (1, 1) or tuple(padding) != (0, 0):
        data, weights = _avx512_1x1_kinds(g, profile)
        if mask[0] and data == "":
            return (
                f"grad_input of a 1x1 kernel at stride {tuple(stride)}, padding {tuple(padding)} at avx512_core "
                "where brgconv_strided's blocking search declines (jit:avx512_core or brgconv_strided:avx2) not "
                "modelled"
            )
        if (mask[1] or mask[2]) and weights == "jit_1x1:avx512_core" and g.c < 16:
            return (
                f"jit_1x1:avx512_core's weights of a 1x1 at stride {tuple(stride)} over {g.c} input channels (below "
                "16 torch corrupts its heap there: glibc's MALLOC_CHECK_=3 aborts on 2 to 16 threads)"
            )
        return ""
    blocks = _avx512_data_blocks(g, profile)
    if len(blocks) > 1:
        return (
            f"brgconv_1x1:avx512_core's grad_input over {w_shape[0]} output channels (blocks of "
            f"{' or '.join(map(str, sorted(blocks)))} by the channel block its search picks) not modelled"
        )
    return ""


_DATA_GEMM_JIT = (
    "grad_input of a kernel side wholly in the padding at stride 1 (brg_conv_bwd declines: gemm:jit nspc, or "
    "ref:any past its scratchpad limit) not modelled"
)


def _data_gemm_jit(g: conv.Geometry) -> bool:
    """Whether a kernel over 1x1 at stride 1 has a side wholly in the padding, where brg_conv_bwd declines
    and oneDNN's list gives grad_input to gemm:jit nspc, or to ref:any where gemm:jit's scratchpad is
    over its limit (ONEDNN_VERBOSE at avx2 and avx512_core; at a stride brgconv_strided takes it). The
    brg_conv_bwd model had given other bits there; gemm:jit's model gave torch's where it ran (random
    draws at avx512_core, 1, 2 and 4 threads), its ref:any bound is not read: refused."""
    return (g.sh, g.sw) == (1, 1) and (g.kh, g.kw) != (1, 1) and conv._kernel_outside_src(g)


def _avx512_declined_weights(dy, x, w, stride, padding, groups: int, has_bias: bool, profile: KernelProfile, mask):
    """(None, grad_weight, grad_bias) at avx512_core where jit:avx512_core's weights kernel declines on
    nxc memory (a top or bottom padding over KH / 2, a left or right one not below KW: its init_conf)
    and, with groups, jit_dw's too: oneDNN's list goes on to jit:avx2 or, where it declines too,
    gemm:jit (ONEDNN_VERBOSE names them at avx512_core as at AVX2), so the AVX2 level's model of them
    (``_avx2_kinds``, ``_avx2_backward``), gemm:jit's sgemm at avx512_core. Operands NaN or infinite
    are refused before (``_avx512_backward``)."""
    avx2 = conv_nhwc.avx2_profile(profile)
    weights = _avx2_kinds(x.shape, w.shape, stride, padding, groups, avx2)[1]
    if weights == "gemm:jit":
        g = (conv._geometry if groups == 1 else partial(conv_grouped._group_geometry, groups=groups))(
            x.shape, w.shape, stride, padding
        )
        gw = None
        if mask[1]:
            gw = (
                _gemm_weights(dy, x, g, profile.threads, og.AVX512)
                if groups == 1
                else _dw_weights_gemm(dy, x, g, profile.threads, og.AVX512)
            )
        return None, gw, (_gemm_bias(dy) if mask[2] and has_bias else None)
    return _avx2_backward(dy, x, w, stride, padding, groups, has_bias, avx2, (False, mask[1], mask[2]))


def _avx512_backward(dy, x, w, stride, padding, groups: int, has_bias: bool, profile: KernelProfile, mask):
    """(grad_input, grad_weight, grad_bias) at AVX-512 (``_avx512_declines`` passed): ATen's slow_conv2d;
    or a 1x1 kernel at stride 1, grad_input brg_conv_bwd:avx512_core+brgconv_1x1:avx512_core (per input
    element and block of output channels one fused chain from 0, the blocks' sums added in order),
    grad_weight and grad_bias jit_1x1:avx512_core on nxc (conv.py's model of the kernel, its nxc
    blocking: ``conv._avx512_1x1_weight_split``); depthwise, jit_dw:avx512_core: grad_input conv_grouped's
    model, grad_weight and grad_bias the nxc harness (``_dw_nxc_weights``, channel blocks of 16)."""
    threads = profile.threads
    if groups == 1 and conv.path(x.shape, w.shape, stride, padding, profile) == conv.THNN:
        return _thnn_backward(dy, x, w, conv._geometry(x.shape, w.shape, stride, padding), has_bias, profile, mask)
    if (mask[1] and not np.isfinite(x).all()) or ((mask[1] or (mask[2] and has_bias)) and not np.isfinite(dy).all()):
        raise ParityError(
            "conv2d backward (channels-last): oneDNN's avx512_core grad_weight and grad_bias over NaN or "
            "infinite operands (which NaN their reductions keep, its sign or payload, not modelled)"
        )
    if groups != 1:
        gx = None
        if mask[0]:
            gx = conv_grouped.conv2d_backward(dy, x, w, stride, padding, groups, False, profile, (True, False, False))
            gx = gx[0]
        gw = gb = None
        if mask[1] or (mask[2] and has_bias):
            g1 = conv_grouped._group_geometry(x.shape, w.shape, stride, padding, groups)
            if conv_grouped.dw_weights_declines(g1) and conv._avx512_weights_declines(g1, nxc=True):
                _, gw, gb = _avx512_declined_weights(dy, x, w, stride, padding, groups, has_bias, profile, mask)
            elif conv_grouped.dw_weights_declines(g1):
                gw, gb = _avx512_group_weights(dy, x, g1, threads, (mask[1], mask[2] and has_bias))
            else:
                gw, gb = _dw_nxc_weights(dy, x, g1, x.shape[1], threads, has_bias and mask[2], True, 16)
        return gx, (gw if mask[1] else None), (gb if (mask[2] and has_bias) else None)
    g = conv._geometry(x.shape, w.shape, stride, padding)
    gx = gw = gb = None
    if (g.kh, g.kw) != (1, 1):
        swapped = _avx512_kxk_data(g)
        searched = _ker_search_data(g, profile) if mask[0] and swapped is None else None
        if mask[0] and swapped is None and searched is None and not (np.isfinite(dy).all() and np.isfinite(w).all()):
            raise ParityError(
                "conv2d backward (channels-last): brgconv_strided:avx512_core's grad_input over NaN or infinite "
                "operands (which NaN it gives, or a NaN where the model has a number, not modelled)"
            )
        if searched is not None:  # W > OW past 16 input channels: the blocking init_conf's search keeps
            gx = _brg_bwd_blocked(dy, w, g, *searched)
        elif mask[0] and swapped is None:  # brgconv_strided:avx512_core
            gx = conv.conv2d_backward(dy, x, w, stride, padding, False, profile, (True, False, False))[0]
        elif mask[0]:
            gx = _brg_bwd_data(dy, w, g, conv_nhwc.avx512_ic_blocks(swapped, profile).pop())
        if (mask[1] or (mask[2] and has_bias)) and conv._avx512_weights_declines(g, nxc=True):
            _, gw, gb = _avx512_declined_weights(dy, x, w, stride, padding, 1, has_bias, profile, mask)
            return gx, gw, gb
        gw, gb = _avx512_nxc_weights(dy, x, g, threads, (mask[1], mask[2] and has_bias))
        return gx, gw, gb
    if (g.sh, g.sw, g.ph, g.pw) != (1, 1, 0, 0):  # a strided or padded 1x1
        return _avx512_1x1_strided(dy, x, w, g, has_bias, profile, mask)
    if mask[0]:
        gx = _brg_bwd_data(dy, w, g, _avx512_data_blocks(g, profile).pop())
    if mask[1]:
        gw = np.empty((g.oc, g.c, 1, 1), np.float32)
        parts, runs = conv._avx512_1x1_weight_split(g, threads, profile.l1_per_core, True)
        conv._run_weights(dy, x, gw, g, parts, runs, True)
    if mask[2] and has_bias:
        gb = conv._bias_grad(dy, conv._bias_parts("jit_1x1:avx512_core", g, threads))
    return gx, gw, gb


# ---------------------------------------------------------------------------------- SSE4.1
def _col2im_rows(cols: np.ndarray, c, h, wd, kh, kw, sh, sw, ph, pw, oh, ow, dh: int = 1, dw: int = 1) -> np.ndarray:
    """col2im nspc: zeros, then per (oh, ow, kh, kw) in order the tap's C values added (cols (OH*OW, KH*KW*C));
    the taps ``dh`` rows and ``dw`` columns apart (a dilation)."""
    im = np.zeros((max(h + 2 * ph, dh * (kh - 1) + sh * (oh - 1) + 1),
                   max(wd + 2 * pw, dw * (kw - 1) + sw * (ow - 1) + 1), c), np.float32)  # fmt: skip
    t = cols.reshape(oh, ow, kh, kw, c)
    # order per input pixel: by (oh, ow) then (kh, kw): add tap slabs in that order; each input pixel
    # gets at most one term per (oh, ow, kh, kw), and slabs of one (oh) never overlap in a pixel for
    # fixed (kh, kw); iterate exactly
    for r in range(oh):
        for q in range(ow):
            for i in range(kh):
                for j in range(kw):
                    y, x = r * sh + i * dh, q * sw + j * dw
                    im[y, x] = im[y, x] + t[r, q, i, j]
    return im[ph : ph + h, pw : pw + wd]


def _data_nspc_threads(g, threads: int, groups: int = 1) -> bool:
    n, c, h, wd, oc, _kh, _kw, _oh, _ow = g[:9]
    is_, simd_w = h * wd, 4
    depthwise = groups > 1 and c == 1 and oc == 1
    outer_work = groups * n
    outer_eff = np.float32(outer_work) / np.float32(conv._div_up(outer_work, threads) * threads)
    inner = conv._div_up(is_, simd_w) * conv._div_up(c, simd_w)
    inner_eff = np.float32(inner) / np.float32(conv._div_up(inner, threads) * threads)
    return (depthwise or (is_ // threads < 64 and n != 1)) and (
        outer_eff / inner_eff >= 1 or (is_ * c * oc) // threads < 65536
    )


def _gemm_data(dy, w, g, threads, isa: str = og.SSE41, dil: tuple[int, int] = (1, 1), groups: int = 1):
    """gemm:jit nspc grad_input (see the module's docstring) with oneDNN's sgemm at ``isa``; its col2im's
    taps ``dil`` apart; ``groups``: dy, w and ``g`` one group's of that many (the threading weighs them all)."""
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    ks, os_ = kh * kw, oh * ow
    outer = _data_nspc_threads(g, threads, groups)
    nthr_gemm = 1 if outer or threads == 1 else threads
    plain = (oh, ow, sh, sw, ks) == (h, wd, 1, 1, 1)
    wf = f32(w.transpose(2, 3, 1, 0)).reshape(-1)  # op(A)[i, p] = wf[p + i*oc], i over (kh, kw, c)
    M = ks * c
    gx = np.empty((n, c, h, wd), np.float32)
    for im in range(n):
        d = f32(dy[im].transpose(1, 2, 0)).reshape(-1)  # op(B)[p, j] = d[p + j*oc]
        col = np.zeros(M * os_, np.float32)
        conv_nhwc._sgemm(True, False, M, os_, oc, wf, oc, d, oc, 0, col, M, nthr_gemm, isa)
        if plain:
            gx[im] = col.reshape(h, wd, c).transpose(2, 0, 1)
        else:
            cols = col.reshape(os_, M)
            gx[im] = _col2im_rows(cols, c, h, wd, kh, kw, sh, sw, ph, pw, oh, ow, *dil).transpose(2, 0, 1)
    return gx


def _weights_nspc_threads(g, threads: int, groups: int = 1) -> int:
    n, _c, _h, _wd, _oc, _kh, _kw, oh, ow = g[:9]
    os_ = oh * ow
    return threads if (os_ // threads < 256 and (n != 1 or groups > 2)) else 1


def _gemm_weights(dy, x, g: conv.Geometry, threads: int, isa: str = og.SSE41,
                  dil: tuple[int, int] = (1, 1)) -> np.ndarray:  # fmt: skip
    """gemm:jit nspc grad_weight (see the module's docstring) with oneDNN's sgemm at ``isa``; its im2col's
    taps ``dil`` apart."""
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    ks, os_ = kh * kw, oh * ow
    nthr = _weights_nspc_threads(g, threads)
    nthr_gemm = 1 if nthr > 1 or threads == 1 else threads
    plain = (oh, ow, sh, sw, ks) == (h, wd, 1, 1, 1)
    N = ks * c
    nthr_mb = min(n, nthr)
    sums = []
    parts = conv._balance211(n, nthr_mb)
    for lo, hi in pairwise(parts):
        acc = np.zeros(oc * N, np.float32)
        for im in range(lo, hi):
            d = f32(dy[im].transpose(1, 2, 0)).reshape(-1)  # A[i, p] = d[i + p*oc]
            if plain:  # B 'T': op(B)[p, j] = src[j + p*c]
                src = f32(x[im].transpose(1, 2, 0)).reshape(-1)
                conv_nhwc._sgemm(False, True, oc, N, os_, d, oc, src, c, int(im > lo), acc, oc, nthr_gemm, isa)
            else:  # B 'N': op(B)[p, j] = col[p + j*os]
                rows = conv_nhwc._im2col_rows(x[im], kh, kw, sh, sw, ph, pw, oh, ow, *dil)
                conv_nhwc._sgemm(
                    False, False, oc, N, os_, d, oc, f32(rows.T).reshape(-1), os_, int(im > lo), acc, oc, nthr_gemm, isa
                )
        sums.append(acc)
    total = sums[0]
    for s in sums[1:]:
        total = total + s
    return f32(total.reshape(kh, kw, c, oc).transpose(3, 2, 0, 1))


def _gemm_bias(dy):
    """gemm:jit nspc grad_bias: per row 4 lanes (GCC omp simd), the tail into lane 0, lanes added in order."""
    n, oc, oh, ow = dy.shape
    db = np.zeros(oc, np.float32)
    main = ow // 4 * 4
    for b in range(n):
        for r in range(oh):
            lanes = [np.zeros(oc, np.float32) for _ in range(4)]
            for q in range(main):
                lanes[q % 4] = lanes[q % 4] + dy[b, :, r, q]
            for q in range(main, ow):
                lanes[0] = lanes[0] + dy[b, :, r, q]
            for lane in lanes:
                db = db + lane
    return db


def _thnn_backward(dy, x, w, g, has_bias: bool, profile: KernelProfile, mask):
    """slow_conv2d_backward channels-last: grad_input per image gemm('N', 'N', K, OH*OW, OC) into a column
    buffer, added back by unfolded2d_acc (per input pixel its (oh, ow, kh, kw) terms in order onto zeros);
    grad_weight per image in order gemm('N', 'T', K, OC, OH*OW), beta 1, MKL on all threads; grad_bias
    ATen's sum over (N, OH, OW) of the channels-last grad_output."""
    from harness.impl.linalg import cpublas_gemm
    from harness.impl.reduce import sum_dims

    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    k, m = c * kh * kw, oh * ow
    wcl = conv_nhwc._nhwc_buffer(w)
    d = conv_nhwc._nhwc_buffer(dy)
    gx = gw = gb = None
    if mask[0]:
        prof = profile if n == 1 else profile.with_threads(1)
        gx = np.empty((n, c, h, wd), np.float32)
        cols = aligned(k * m)
        for t in range(n):
            cpublas_gemm("n", "n", k, m, oc, wcl, k, d[t * m * oc :], oc, 0.0, cols, k, prof)
            gx[t] = _col2im_rows(cols.reshape(m, k), c, h, wd, kh, kw, sh, sw, ph, pw, oh, ow).transpose(2, 0, 1)
    if mask[1]:
        prof = profile
        cols = conv_nhwc.thnn_columns(x, g)
        acc = aligned(k * oc)
        for t in range(n):
            cpublas_gemm("n", "t", k, oc, m, cols[t * m * k :], k, d[t * m * oc :], oc, 1.0, acc, k, prof)
        gw = f32(acc.reshape(oc, kh, kw, c).transpose(0, 3, 1, 2))
    if mask[2] and has_bias:
        gb = sum_dims(f32(dy.transpose(0, 2, 3, 1)), (0, 1, 2), profile)
    return gx, gw, gb


def _dw_data(dy, w, g1):
    """jit_dw:sse41 backward data (nhwc): per input one chain over the taps (the NCHW model's order), unfused."""
    from harness.impl._lib import ptr

    lib = conv._lib()
    c = w.shape[0]
    dys = conv_nhwc._per_channel(dy)
    out = np.empty((c, g1.n, 1, g1.h, g1.w), np.float32)
    for ch in range(c):
        lib.conv_bwd_data_direct(*g1, ptr(dys[ch]), ptr(f32(w[ch : ch + 1])), ptr(out[ch]), 1, 0, 0, 0)
    return f32(out[:, :, 0].swapaxes(0, 1))


def _groups_weights_gemm(dy, x, g: conv.Geometry, groups: int, threads: int) -> np.ndarray:
    """gemm:jit nspc grad_weight of groups of several channels at SSE4.1: per group and image one sgemm
    (as ``_gemm_weights``: M = the group's output channels, N = KH*KW*its channels, K the pixels, grad_output
    strided by OC, the input's im2col columns), bwd_weights_balance's threads: min(groups, threads) a group
    at a time, each group's images split between threads // that of them, their sums added in order."""
    n, c, h, wd, oc, kh, kw, oh, ow, sh, sw, ph, pw = g
    ks, os_ = kh * kw, oh * ow
    outer = os_ // threads < 256 and (n != 1 or groups > 2)
    nthr = threads if outer else 1
    nthr_g = min(groups, nthr)
    nthr_mb = min(n, nthr // nthr_g)
    nthr_gemm = 1 if outer or threads == 1 else threads
    plain = (oh, ow, sh, sw, ks) == (h, wd, 1, 1, 1)
    N = ks * c
    gw = np.empty((groups * oc, c, kh, kw), np.float32)
    for k in range(groups):
        parts = []
        for lo, hi in pairwise(conv._balance211(n, nthr_mb)):
            acc = np.zeros(oc * N, np.float32)
            for im in range(lo, hi):
                d = f32(dy[im].transpose(1, 2, 0)).reshape(-1)[k * oc :]  # A[i, p] = d[i + p*OC]
                xs = x[im, k * c : (k + 1) * c]
                if plain:  # B 'T': op(B)[p, j] = src[j + p*C]
                    src = f32(x[im].transpose(1, 2, 0)).reshape(-1)[k * c :]
                    conv_nhwc._sgemm(False, True, oc, N, os_, d, groups * oc, src, groups * c, int(im > lo), acc, oc,
                                     nthr_gemm)  # fmt: skip
                else:
                    rows = conv_nhwc._im2col_rows(xs, kh, kw, sh, sw, ph, pw, oh, ow)
                    conv_nhwc._sgemm(False, False, oc, N, os_, d, groups * oc, f32(rows.T).reshape(-1), os_,
                                     int(im > lo), acc, oc, nthr_gemm)  # fmt: skip
            parts.append(acc)
        tot = parts[0]
        for p in parts[1:]:
            tot = tot + p
        gw[k * oc : (k + 1) * oc] = tot.reshape(kh, kw, c, oc).transpose(3, 2, 0, 1)
    return gw


def _dw_weights_gemm(dy, x, g1, threads: int, isa: str = og.SSE41):
    """gemm:jit nspc backward weights with groups = C (weights decab): per group and image one sgemm
    of M = 1 (its gemv: 'T' over the im2col columns, x = grad_output strided by C; 'N' for 1x1 plain)."""
    n, _c, h, wd, _oc, kh, kw, oh, ow, sh, sw, ph, pw = g1
    c = x.shape[1]
    ks, os_ = kh * kw, oh * ow
    outer = os_ // threads < 256 and (n != 1 or c > 2)
    nthr = threads if outer else 1
    nthr_g = min(c, nthr)
    nthr_mb = min(n, nthr // nthr_g)
    plain = (oh, ow, sh, sw, ks) == (h, wd, 1, 1, 1)
    nthr_gemm = 1 if outer or threads == 1 else threads
    gw = np.empty((c, 1, kh, kw), np.float32)
    for ch in range(c):
        parts = []
        for lo, hi in pairwise(conv._balance211(n, nthr_mb)):
            acc = np.zeros(ks, np.float32)
            for im in range(lo, hi):
                d = f32(dy[im].transpose(1, 2, 0)).reshape(-1)[ch:]  # A[0, p] = d[p*C]
                if plain:
                    src = f32(x[im].transpose(1, 2, 0)).reshape(-1)[ch:]
                    conv_nhwc._sgemm(False, True, 1, ks, os_, d, c, src, c, int(im > lo), acc, 1, nthr_gemm, isa)
                else:
                    rows = conv_nhwc._im2col_rows(x[im, ch : ch + 1], kh, kw, sh, sw, ph, pw, oh, ow)
                    conv_nhwc._sgemm(False, False, 1, ks, os_, d, c, f32(rows.T).reshape(-1), os_, int(im > lo), acc, 1,
                           nthr_gemm, isa)  # fmt: skip
            parts.append(acc)
        tot = parts[0]
        for p in parts[1:]:
            tot = tot + p
        gw[ch, 0] = tot.reshape(kh, kw)
    return gw


def _sse41_groups(x_shape, groups: int, profile: KernelProfile) -> bool:
    """Groups of 2 or more input channels each (not depthwise) at SSE4.1: gemm:jit nspc runs every backward
    pass (ONEDNN_VERBOSE on a Zen 5, whole blocks of 8 too)."""
    return (
        groups > 1
        and x_shape[1] // groups > 1
        and conv_nhwc._level(profile) == "sse41"
        and not (conv_nhwc._unmodelled_level(profile))
    )


def _sse41_groups_backward(dy, x, w, stride, padding, groups: int, has_bias: bool, profile: KernelProfile, mask):
    """gemm:jit nspc's backward of groups of several channels at SSE4.1: grad_input per group ``_gemm_data``
    (its outer threading over every group's images), grad_weight ``_groups_weights_gemm``, grad_bias
    ``_gemm_bias``. Measured on a Zen 5 (2 to 8 groups of 2 to 24 channels, kernels 1 to 7, strides 1 and
    2, 1 to 3 images): every pass bit for bit at 1, 2 and 4 threads."""
    g = conv_grouped._group_geometry(x.shape, w.shape, stride, padding, groups)
    ocg = g.oc
    gx = gw = gb = None
    if mask[0]:
        gx = np.concatenate(
            [_gemm_data(dy[:, k * ocg : (k + 1) * ocg], w[k * ocg : (k + 1) * ocg], g, profile.threads, groups=groups)
             for k in range(groups)],
            axis=1,
        )  # fmt: skip
    if mask[1]:
        gw = _groups_weights_gemm(dy, x, g, groups, profile.threads)
    if mask[2] and has_bias:
        gb = _gemm_bias(dy)
    return gx, gw, gb


def _sse41_backward(dy, x, w, stride, padding, groups: int, has_bias: bool, profile: KernelProfile, mask):
    """(grad_input, grad_weight, grad_bias) at SSE4.1 (``declines`` already passed)."""
    if _sse41_groups(x.shape, groups, profile):
        return _sse41_groups_backward(dy, x, w, stride, padding, groups, has_bias, profile, mask)
    _fwd, data, weights = conv_nhwc.sse41_kinds(x.shape, w.shape, stride, padding, groups, profile)
    threads = profile.threads
    want_b = bool(mask[2] and has_bias)
    if groups == 1:
        g = conv._geometry(x.shape, w.shape, stride, padding)
        if data == "thnn":
            return _thnn_backward(dy, x, w, g, has_bias, profile, mask)
        gx = _gemm_data(dy, w, g, threads) if mask[0] else None
        gw = _gemm_weights(dy, x, g, threads) if mask[1] else None
        return gx, gw, (_gemm_bias(dy) if want_b else None)
    g1 = conv_grouped._group_geometry(x.shape, w.shape, stride, padding, groups)
    gx = None
    if mask[0]:
        gx = _dw_data(dy, w, g1)  # jit_dw:sse41's grad_input: its init_conf takes any padding
    gw = gb = None
    if weights == "jit_dw" and (mask[1] or want_b):
        gw, gb = _dw_nxc_weights(dy, x, g1, x.shape[1], threads, want_b, False)
    elif mask[1] or want_b:
        gw = _dw_weights_gemm(dy, x, g1, threads) if mask[1] else None
        gb = _gemm_bias(dy) if want_b else None
    return gx, (gw if mask[1] else None), (gb if want_b else None)


# ------------------------------------------------------- AVX2: groups of several channels
def _avx2_groups(x_shape, groups: int, profile: KernelProfile) -> bool:
    """Groups of 2 or more input channels each (not depthwise) at AVX2: oneDNN runs grad_input at stride 1
    by brg_conv_bwd:avx2 (+brg_conv_fwd:avx2 or +brgconv_1x1:avx2) on nxc memory group by group, at a
    stride jit:avx2 or brgconv_strided:avx2, grad_weight and grad_bias by jit:avx2 on aBCde8c8b blocks
    (ONEDNN_VERBOSE on a Zen 5)."""
    return (
        groups > 1
        and x_shape[1] // groups > 1
        and conv_nhwc._level(profile) == "avx2"
        and not conv_nhwc._unmodelled_level(profile)
    )


def _avx2_groups_declines(x_shape, w_shape, stride, padding, groups: int, profile: KernelProfile,
                          mask: tuple[bool, bool, bool]) -> str:  # fmt: skip
    """ "" where ``conv2d_backward`` models the gradients ``mask`` asks of groups of several channels at
    AVX2, else a one-line reason: grad_input at stride 1 where one group's would be brg_conv_bwd's (up to
    ``_AVX2_GROUP_DATA_CHANNELS`` channels a group a side, measured), grad_weight and grad_bias as
    ``_avx2_groups_weights_declines`` says, grad_input at stride 2 by ``_avx2_groups_strided_data``'s kernel on
    ``_AVX2_GROUP_STRIDED_THREADS`` threads (measured); refused: padded 1x1 kernels at stride 1."""
    head = f"{groups} groups of {x_shape[1] // groups} channels at avx2"
    if conv_grouped._thnn_per_group(x_shape, w_shape, stride, profile):
        return "ATen's slow_conv2d per group"
    if mask[1] or mask[2]:
        why = _avx2_groups_weights_declines(x_shape, w_shape, stride, padding, groups, profile)
        if why:
            return f"jit:avx2's grad_weight and grad_bias of {head} (aBCde8c8b blocks): {why}"
    if not mask[0]:
        return ""
    cg, ocg = x_shape[1] // groups, w_shape[0] // groups
    if max(cg, ocg) > _AVX2_GROUP_DATA_CHANNELS:
        return f"grad_input of {head} over {_AVX2_GROUP_DATA_CHANNELS} channels a group a side (not measured)"
    if tuple(stride) != (1, 1):
        if profile.threads not in _AVX2_GROUP_STRIDED_THREADS or max(stride) > 2:
            return (
                f"grad_input of {head} at stride {tuple(stride)} on {profile.threads} threads not measured "
                f"(strides 2, {', '.join(map(str, _AVX2_GROUP_STRIDED_THREADS))} threads)"
            )
        return ""
    gx_shape, gw_shape = (x_shape[0], cg, *x_shape[2:]), (ocg, *w_shape[1:])
    data = _avx2_kinds(gx_shape, gw_shape, stride, padding, 1, profile, aten=False)[0]
    if data.startswith("decline:"):
        return f"{head}, a group's {data.removeprefix('decline:')}"
    if not data.startswith("brg_conv_bwd:avx2"):  # a padded 1x1: ONEDNN_VERBOSE names no oneDNN kernel for it
        return f"grad_input of {head} where one group's would run {data} (a padded 1x1)"
    why = _avx2_declines(gx_shape, gw_shape, stride, padding, 1, profile, (True, False, False), aten=False)
    return f"grad_input of {head}: {why}" if why else ""


# the channels a group (either side) the AVX2 grouped grad_input was measured over
_AVX2_GROUP_DATA_CHANNELS = 64
# the thread counts the AVX2 grouped grad_input at a stride was measured at (strides 1 and 2 in each direction)
_AVX2_GROUP_STRIDED_THREADS = (1, 2, 4)


def _avx2_groups_strided_data(g: conv.Geometry, groups: int, profile: KernelProfile) -> str:
    """oneDNN's grad_input kernel of groups of several channels on nxc memory at AVX2 and a stride over 1
    (``g`` one group's geometry), in the order it tries them: ``brgconv_strided:avx2`` over 8 output
    channels a group where its blocking search over all the groups finds a blocking, ``jit:avx2`` where
    jit_avx2_conv_bwd_data_kernel_f32::init_conf takes the group (equal strides; "gemm-based convolution
    performs better" declines fewer than 8 input channels a group under a kernel wider than 3 at a stride;
    ``conv._avx2_data_declines``' unroll and overflow checks; channel tails on nxc, not padded), else
    ``gemm:jit`` (ONEDNN_VERBOSE on a Zen 5: every measured draw's kernel so predicted)."""
    if g.oc > 8 and not conv._strided_declines(g, profile, 8, groups):
        return "brgconv_strided:avx2"
    small = g.c < 8 and g.kw > 3 and g.sw > 1
    if g.sh == g.sw and not small and not conv._avx2_data_declines(g):
        return "jit:avx2"
    return "gemm:jit"


# AVX2's grouped grad_weight and grad_bias: the thread counts and channels a group (either side) measured
_AVX2_GROUP_WEIGHTS_THREADS = (1, 2, 4)
_AVX2_GROUP_WEIGHTS_CHANNELS = 24


def _avx2_groups_weights_declines(x_shape, w_shape, stride, padding, groups: int, profile: KernelProfile) -> str:
    """ "" where jit:avx2's grad_weight and grad_bias of groups of several channels on nxc memory is modelled
    (harness.impl.conv_grouped ``_direct_groups_weights``: whole blocks of 8 channels a group each side, where
    one group's jit:avx2 weights kernel takes the padding), else why not."""
    cg, ocg = x_shape[1] // groups, w_shape[0] // groups
    if cg % 8 or ocg % 8:
        return "groups of other than whole blocks of 8 channels not modelled"
    if max(cg, ocg) > _AVX2_GROUP_WEIGHTS_CHANNELS or profile.threads not in _AVX2_GROUP_WEIGHTS_THREADS:
        return (
            f"not measured past {_AVX2_GROUP_WEIGHTS_CHANNELS} channels a group or at {profile.threads} threads "
            f"(measured at {', '.join(map(str, _AVX2_GROUP_WEIGHTS_THREADS))})"
        )
    if conv._avx2_weights_declines(conv_grouped._group_geometry(x_shape, w_shape, stride, padding, groups)):
        return "padding one group's jit:avx2 weights kernel declines not modelled"
    return ""


def _avx2_groups_backward(dy, x, w, stride, padding, groups: int, profile: KernelProfile) -> np.ndarray:
    """grad_input of groups of several channels at AVX2 (``_avx2_groups_declines`` passed): at stride 1
    brg_conv_bwd:avx2 group by group, each group one group's grad_input (``_brg_bwd_blocked`` or
    ``_brg_bwd_data`` with the blocks one group's search keeps), the groups' side by side; at a stride
    the kernel ``_avx2_groups_strided_data`` names: brgconv_strided:avx2 as over NCHW groups (conv_grouped
    ``brgconv_strided_groups``: per group conv.py's model, its search counting every group's work; refused
    over NaN or infinite operands), jit:avx2 group by group (conv_grouped ``_direct_groups_data``: per chunk
    of output-channel blocks a fused chain from 0 over the taps reaching the pixel, the chunks' sums added),
    gemm:jit nspc per group with oneDNN's AVX2 sgemm (``_gemm_data``, its threading over every group's
    images)."""
    cg, ocg = x.shape[1] // groups, w.shape[0] // groups
    if tuple(stride) != (1, 1):
        g = conv_grouped._group_geometry(x.shape, w.shape, stride, padding, groups)
        kind = _avx2_groups_strided_data(g, groups, profile)
        if kind == "brgconv_strided:avx2":
            return conv_grouped.brgconv_strided_groups(dy, w, g, groups, 8, profile)
        if kind == "jit:avx2":
            return conv_grouped._direct_groups_data(dy, w, g, groups, False)
        return np.concatenate(
            [_gemm_data(dy[:, k * ocg : (k + 1) * ocg], w[k * ocg : (k + 1) * ocg], g, profile.threads, og.AVX2,
                        groups=groups) for k in range(groups)],
            axis=1,
        )  # fmt: skip
    parts = []
    for k in range(groups):
        xg = np.ascontiguousarray(x[:, k * cg : (k + 1) * cg])
        wg = np.ascontiguousarray(w[k * ocg : (k + 1) * ocg])
        dyg = np.ascontiguousarray(dy[:, k * ocg : (k + 1) * ocg])
        parts.append(_avx2_backward(dyg, xg, wg, stride, padding, 1, False, profile, (True, False, False), False)[0])
    return np.concatenate(parts, axis=1)


# ------------------------------------------------------------------------------- interface
def declines(x_shape, w_shape, stride, padding, groups: int, profile: KernelProfile,
             mask: tuple[bool, bool, bool] = (True, True, True)) -> str:  # fmt: skip
    """ "" where ``conv2d_backward`` models the case under ``profile`` (at AVX-512 the gradients ``mask``
    asks: grad_input, grad_weight, grad_bias), else a one-line reason."""
    if _sse41_groups(x_shape, groups, profile):
        if conv_grouped._thnn_per_group(x_shape, w_shape, stride, profile):
            return "ATen's slow_conv2d per group"
        plain = tuple(w_shape[2:]) == (1, 1) and tuple(stride) == (1, 1) and tuple(padding) == (0, 0)
        if plain and mask[1]:
            # a 1x1 at stride 1 unpadded (the input's own memory as B): other bits for one output channel a
            # group on 2 and 4 threads (17 of 24, 15 of 16 weights), the order its sgemm takes not read
            return "gemm:jit nspc's grad_weight of groups of several channels over a 1x1 kernel at stride 1 unpadded"
        return ""
    if _avx2_groups(x_shape, groups, profile):
        return _avx2_groups_declines(x_shape, w_shape, stride, padding, groups, profile, mask)
    why = conv_nhwc.common_declines(x_shape, w_shape, stride, groups, profile, ("default", "avx2", "avx512"))
    if why:
        return why
    if conv_nhwc._level(profile) == "avx512":
        return _avx512_declines(x_shape, w_shape, stride, padding, groups, profile, mask)
    if conv_nhwc._level(profile) == "avx2":
        return _avx2_declines(x_shape, w_shape, stride, padding, groups, profile, mask)
    kinds = conv_nhwc.sse41_kinds(x_shape, w_shape, stride, padding, groups, profile)
    return next((k[len("refuse: ") :] for k in kinds[1:] if k.startswith("refuse")), "")


def conv2d_backward(dy, x, w, stride, padding, groups: int, has_bias: bool, profile: KernelProfile, mask):
    """(grad_input, grad_weight, grad_bias) of the channels-last convolution, None where ``mask``
    leaves one out (or no bias); ParityError where ``declines`` gives a reason."""
    dy, x, w = f32(np.asarray(dy)), f32(np.asarray(x)), f32(np.asarray(w))
    stride, padding = tuple(int(v) for v in stride), tuple(int(v) for v in padding)
    mask = tuple(bool(m) for m in mask)
    reason = declines(x.shape, w.shape, stride, padding, groups, profile, mask)
    if reason:
        raise ParityError(f"conv2d backward (channels-last): not modelled: {reason}")
    if conv_nhwc._level(profile) == "avx512":
        return _avx512_backward(dy, x, w, stride, padding, groups, has_bias, profile, mask)
    if _avx2_groups(x.shape, groups, profile):
        gx = _avx2_groups_backward(dy, x, w, stride, padding, groups, profile) if mask[0] else None
        gw = gb = None
        if mask[1] or (mask[2] and has_bias):  # jit:avx2 on nxc over whole blocks of 8, as over blocked memory
            g = conv_grouped._group_geometry(x.shape, w.shape, stride, padding, groups)
            _, gw, gb = conv_grouped._direct_groups_weights(dy, x, g, groups, has_bias, profile, mask)
        return gx, gw, gb
    if conv_nhwc._level(profile) == "avx2":
        return _avx2_backward(dy, x, w, stride, padding, groups, has_bias, profile, mask)
    return _sse41_backward(dy, x, w, stride, padding, groups, has_bias, profile, mask)
