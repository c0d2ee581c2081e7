// Shape, parameter and cost rules, shared by the operators of op_schema.cpp. Each rule
// checks what PyTorch would reject (and what would make a program uncheckable) and
// throws IrError with a sentence naming the input or attribute at fault.
#pragma once

#include "ir/op_schema.h"

namespace drtriton::rules {

using Ins = std::vector<TensorType>;

// Shapes.
TensorType same_shape(const Ins& in, Attrs& attrs);
TensorType channel_dropout(const Ins& in, Attrs& attrs);  // same_shape of an (N, C, ...) input
TensorType clamp_bounds(const Ins& in, Attrs& attrs);     // same_shape; integer bounds of integers
TensorType broadcast(const Ins& in, Attrs& attrs);
TensorType compare(const Ins& in, Attrs& attrs);         // broadcast, bool out
TensorType compare_scalar(const Ins& in, Attrs& attrs);  // same shape, bool out
TensorType full(const Ins& in, Attrs& attrs);
TensorType arange(const Ins& in, Attrs& attrs);  // no inputs: size and dtype
TensorType cast(const Ins& in, Attrs& attrs);    // same shape, dtype
TensorType div_scalar(const Ins& in, Attrs& attrs);
TensorType where(const Ins& in, Attrs& attrs);
TensorType linear(const Ins& in, Attrs& attrs);
TensorType matmul(const Ins& in, Attrs& attrs);
TensorType bmm(const Ins& in, Attrs& attrs);
TensorType addmm(const Ins& in, Attrs& attrs);
// Attention: query [..., L, E], key [..., S, E], value [..., S, Ev] -> [..., L, Ev].
TensorType sdpa(const Ins& in, Attrs& attrs);
TensorType conv(const Ins& in, Attrs& attrs);
TensorType conv_transpose(const Ins& in, Attrs& attrs);
TensorType reduce_dims(const Ins& in, Attrs& attrs);  // dim: int list, keepdim
TensorType sum_dims(const Ins& in, Attrs& attrs);    // reduce_dims; i64 of an integer or bool input
TensorType reduce_dim(const Ins& in, Attrs& attrs);  // dim: one int, keepdim
TensorType arg_reduce(const Ins& in, Attrs& attrs);  // reduce_dim with i64 output
TensorType along_dim(const Ins& in, Attrs& attrs);   // softmax, cumsum: same shape
TensorType batch_norm1d(const Ins& in, Attrs& attrs);
TensorType batch_norm2d(const Ins& in, Attrs& attrs);
TensorType batch_norm3d(const Ins& in, Attrs& attrs);
TensorType instance_norm2d(const Ins& in, Attrs& attrs);
TensorType instance_norm3d(const Ins& in, Attrs& attrs);
TensorType group_norm(const Ins& in, Attrs& attrs);
TensorType trailing_norm(const Ins& in, Attrs& attrs);  // layer_norm, rms_norm
TensorType max_pool(const Ins& in, Attrs& attrs);
TensorType avg_pool(const Ins& in, Attrs& attrs);
TensorType adaptive_pool(const Ins& in, Attrs& attrs);
TensorType reshape(const Ins& in, Attrs& attrs);
TensorType flatten(const Ins& in, Attrs& attrs);
TensorType permute(const Ins& in, Attrs& attrs);
TensorType transpose(const Ins& in, Attrs& attrs);
TensorType flip(const Ins& in, Attrs& attrs);      // dims: distinct dims of input 0
TensorType slice(const Ins& in, Attrs& attrs);     // x[start:end:step] along dim
TensorType select(const Ins& in, Attrs& attrs);    // x[index] along dim: one rank less
TensorType expand(const Ins& in, Attrs& attrs);    // size: -1 keeps a dim; new dims lead
TensorType roll(const Ins& in, Attrs& attrs);      // shifts and dims, as many of each
TensorType pad(const Ins& in, Attrs& attrs);       // F.pad's (left, right) pairs, last dim first
TensorType upsample(const Ins& in, Attrs& attrs);  // spatial dims become `size`
TensorType unsqueeze(const Ins& in, Attrs& attrs);
TensorType squeeze(const Ins& in, Attrs& attrs);
TensorType cat(const Ins& in, Attrs& attrs);
TensorType embedding(const Ins& in, Attrs& attrs);     // indices' shape + [embedding_dim]
TensorType index_select(const Ins& in, Attrs& attrs);  // the indices' shape replaces dim
TensorType gather(const Ins& in, Attrs& attrs);        // the indices' shape
TensorType nll_loss(const Ins& in, Attrs& attrs);      // target's shape, or 0-d when reduced
// Recurrent layers: input 0 the sequence, then the initial states (none, or all of them).
TensorType lstm(const Ins& in, Attrs& attrs);
TensorType gru(const Ins& in, Attrs& attrs);  // also rnn

// Parameters of module ops.
std::vector<ParamSpec> linear_params(const Attrs& attrs);
std::vector<ParamSpec> conv_params(const Attrs& attrs);
std::vector<ParamSpec> conv_transpose_params(const Attrs& attrs);
std::vector<ParamSpec> batch_norm_params(const Attrs& attrs);  // also instance norm
std::vector<ParamSpec> group_norm_params(const Attrs& attrs);
std::vector<ParamSpec> layer_norm_params(const Attrs& attrs);
std::vector<ParamSpec> rms_norm_params(const Attrs& attrs);
std::vector<ParamSpec> embedding_params(const Attrs& attrs);
std::vector<ParamSpec> lstm_params(const Attrs& attrs);
std::vector<ParamSpec> gru_params(const Attrs& attrs);
std::vector<ParamSpec> rnn_params(const Attrs& attrs);

// FLOPs, where "per element" does not describe the work.
double linear_flops(const Ins& in, const TensorType& out, const Attrs& attrs);
double matmul_flops(const Ins& in, const TensorType& out, const Attrs& attrs);
double sdpa_flops(const Ins& in, const TensorType& out, const Attrs& attrs);
double conv_flops(const Ins& in, const TensorType& out, const Attrs& attrs);
double conv_transpose_flops(const Ins& in, const TensorType& out, const Attrs& attrs);
double pool_flops(const Ins& in, const TensorType& out, const Attrs& attrs);
double lstm_flops(const Ins& in, const TensorType& out, const Attrs& attrs);
double gru_flops(const Ins& in, const TensorType& out, const Attrs& attrs);
double rnn_flops(const Ins& in, const TensorType& out, const Attrs& attrs);
double no_flops(const Ins& in, const TensorType& out, const Attrs& attrs);

}  // namespace drtriton::rules
