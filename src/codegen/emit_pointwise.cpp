// A kernel's source and launch (finish_kernel), and the pointwise kernel that writes a value
// (materialize).
#include <cctype>
#include <map>
#include <optional>
#include <sstream>

#include "codegen/lowering.h"

namespace drtriton::codegen {

namespace {

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The temporaries (t0, t1, ...) a line names, and the one it assigns ("" if none).
std::vector<std::string> temporaries(const std::string& line) {
  std::vector<std::string> names;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != 't' || (i > 0 && is_word_char(line[i - 1]))) continue;
    size_t j = i + 1;
    while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
    if (j > i + 1 && (j == line.size() || !is_word_char(line[j])))
      names.push_back(line.substr(i, j - i));
    i = j - 1;
  }
  return names;
}

std::string assigned(const std::string& line) {
  size_t start = line.find_first_not_of(' ');
  if (start == std::string::npos || line[start] != 't') return "";
  size_t eq = line.find(" = ", start);
  if (eq == std::string::npos) return "";
  std::string name = line.substr(start, eq - start);
  return temporaries(name) == std::vector<std::string>{name} ? name : "";
}

// The kernel's lines without the temporaries nothing reads (the dims of a decomposition that
// a flat offset left unused): Triton drops them anyway, a reader need not see them. A block
// that would be left empty keeps its lines.
std::vector<std::string> live_lines(const std::vector<std::string>& body) {
  std::map<std::string, int> uses;
  for (const std::string& line : body) {
    std::string own = assigned(line);
    for (const std::string& t : temporaries(line))
      if (t != own) ++uses[t];
  }
  std::vector<bool> dead(body.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < body.size(); ++i) {
      std::string own = assigned(body[i]);
      if (dead[i] || own.empty() || uses[own] > 0) continue;
      dead[i] = changed = true;
      for (const std::string& t : temporaries(body[i]))
        if (t != own) --uses[t];
    }
  }
  std::vector<std::string> live;
  for (size_t i = 0; i < body.size(); ++i)
    if (!dead[i]) live.push_back(body[i]);
  auto indent = [](const std::string& l) { return l.find_first_not_of(' '); };
  for (size_t i = 0; i < live.size(); ++i)
    if (!live[i].empty() && live[i].back() == ':' &&
        (i + 1 == live.size() || indent(live[i + 1]) <= indent(live[i])))
      return body;
  return live;
}

}  // namespace

// Writes the kernel's source and its launch in the forward.
void Lowering::finish_kernel(Kernel& k, const std::vector<std::string>& extra_params,
                             const std::vector<std::string>& constexprs, const std::string& grid,
                             const std::vector<std::string>& extra_args,
                             const std::vector<std::string>& constexpr_args,
                             const std::vector<std::string>& launch_options) {
  std::vector<std::string> params, args;
  for (const std::string& var : k.pointers()) {
    params.push_back(var + "_ptr");
    args.push_back(var);
  }
  for (const std::string& s : k.sizes()) {
    params.push_back(options_.knobs.sizes == "static" && s != kStep ? s + ": tl.constexpr" : s);
    args.push_back(s);
  }
  for (size_t i = 0; i < extra_params.size(); ++i) {
    params.push_back(extra_params[i]);
    args.push_back(extra_args[i]);
  }
  for (size_t i = 0; i < constexprs.size(); ++i) {
    params.push_back(constexprs[i] + ": tl.constexpr");
    args.push_back(constexprs[i] + "=" + constexpr_args[i]);
  }
  if (k.training()) {  // a dropout inside: it drops in training mode only
    params.push_back("TRAINING: tl.constexpr");
    args.push_back("TRAINING=self.training");
  }
  for (const std::string& a : warps_args(options_.knobs)) args.push_back(a);
  args.insert(args.end(), launch_options.begin(), launch_options.end());
  k.touch(current_node_);
  computes_.push_back({k.name(), k.nodes()});
  std::ostringstream src;
  src << "@triton.jit\ndef " << k.name() << "(" << join(params, ", ") << "):\n";
  for (const std::string& l : live_lines(k.body())) src << l << "\n";
  kernels_.push_back(src.str());
  forward_.push_back(k.name() + "[" + grid + "](" + join(args, ", ") + ")");
}

// A pointwise kernel that writes `v`'s expression over its whole shape (a copy when `v` is
// a buffer already). `channels_last`: the buffer is NHWC (NDHWC) in memory. The kernel runs
// over it in memory order where its loads are in that layout too, so that loads and stores
// are contiguous; where they are not (NCHW out of channels-last buffers, or channels-last
// out of NCHW ones), it writes tiles of BLOCK_C channels by BLOCK_S positions of one sample,
// whose loads run along one axis and stores along the other (Triton transposes the tile in
// shared memory).
std::string Lowering::materialize(ValueId v, bool channels_last) {
  std::vector<std::string> shape = shape_of(v);
  const Value& val = g_.value(v);
  // A permute into [N, H, W, C] order of an NCHW value is that value written channels-last,
  // seen through the permute: a kernel whose loads run along the positions and its stores
  // along the channels, where one over [N, H, W, C] loads a channel's plane apart (a 7x7
  // depthwise convolution then loaded 49 sectors an element).
  const Node* node = val.kind == ValueKind::Node ? &g_.nodes()[val.node] : nullptr;
  if (!channels_last && node && channels_permute(*node) > 0) {
    ValueId in = node->inputs[0];
    if (!reads_channels_last(in)) {
      auto before = buffers_.find(in);
      std::optional<Buffer> kept;
      if (before != buffers_.end()) kept = before->second;
      std::string written = materialize(in, true);
      if (kept) buffers_[in] = *kept;  // its NCHW buffer stays the one its other readers read
      std::string view = "buf" + std::to_string(next_buffer_++), dims;
      for (int64_t d : attr_ints(node->attrs, "dims"))
        dims += (dims.empty() ? "" : ", ") + std::to_string(d);
      forward_.push_back(view + " = " + written + ".permute(" + dims + ")");
      buffers_[v] = {view, true};
      return view;
    }
  }
  std::string out = alloc(shape, val.type.dtype, channels_last);
  std::string what = node ? node->schema().name : "copy";
  Kernel k("k" + std::to_string(kernels_.size()) + "_" + what);
  std::string block = pointwise_block(options_.knobs);
  if (channels_last ? !reads_channels_last(v) : wants_channels_last(v)) {
    std::vector<std::string> spatial(shape.begin() + 2, shape.end());
    k.line("s = " + program_id() + " * BLOCK_S + tl.arange(0, BLOCK_S)[None, :]");
    k.line("c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)[:, None]");
    k.line(int64_index_ ? "n = tl.program_id(2).to(tl.int64)" : "n = tl.program_id(2)");
    k.line("mask = (c < C) & (s < S)");
    std::vector<std::string> dims = {"n", "c"};
    for (const std::string& d : decompose(k, "s", spatial)) dims.push_back(d);
    // The loads' layout is the one the stores are not: its offsets, for loads of the whole shape.
    std::string nchw = "(n * C + c) * S + s", nhwc = "(n * S + s) * C + c";
    Index idx = channels_last ? Index{dims, "mask", nchw, shape}
                              : Index{dims, "mask", nhwc, channels_last_shape(shape)};
    std::string result = emit(k, v, idx);
    std::string at = channels_last ? nhwc : nchw;
    k.line("tl.store(" + k.pointer(out) + " + " + at + ", " + rounded(val.type.dtype, result) +
           ", mask=mask)");
    std::string c = shape[1], positions = product(spatial);
    forward_.push_back(channel_block_line(c));
    finish_kernel(k, {"C", "S"}, {"BLOCK_C", "BLOCK_S"},
                  "(triton.cdiv(" + positions + ", " + block + " // BLOCK_C), triton.cdiv(" + c +
                      ", BLOCK_C), " + shape[0] + ")",
                  {c, positions}, {"BLOCK_C", block + " // BLOCK_C"});
    buffers_[v] = {out, true};
    return out;
  }
  k.line("offs = " + program_id() + " * BLOCK + tl.arange(0, BLOCK)");
  // Under static sizes N is a constant too: where the blocks tile it exactly, so is the mask,
  // and Triton drops the predicate of every load and store (as in Inductor's kernels).
  const bool static_sizes = options_.knobs.sizes == "static";
  if (static_sizes) {
    k.line("if N % BLOCK == 0:");
    k.line("    mask = tl.full([BLOCK], 1, tl.int1)");
    k.line("else:");
    k.line("    mask = offs < N");
  } else {
    k.line("mask = offs < N");
  }
  Index idx = channels_last ? Index{logical_order(decompose(k, "offs", memory_order(shape))),
                                    "mask", "offs", channels_last_shape(shape)}
                            : Index{decompose(k, "offs", shape), "mask", "offs", shape};
  std::string result = emit(k, v, idx);
  k.line("tl.store(" + k.pointer(out) + " + offs, " + rounded(val.type.dtype, result) +
         ", mask=mask)");
  std::string n = numel_py(v);
  finish_kernel(k, {static_sizes ? "N: tl.constexpr" : "N"}, {"BLOCK"},
                "(triton.cdiv(" + n + ", " + block + "),)", {n}, {block});
  buffers_[v] = {out, true};
  return out;
}

}  // namespace drtriton::codegen
