// Launch configurations (schedule.h), and the knobs that set their defaults.
#include "codegen/schedule.h"

#include <random>
#include <sstream>
#include <stdexcept>

#include "codegen/kernel.h"

namespace drtriton::codegen {

std::vector<std::string> warps_args(const CodegenKnobs& knobs) {
  if (knobs.num_warps == 0) return {};
  return {"num_warps=" + std::to_string(knobs.num_warps)};
}

std::string pointwise_block(const CodegenKnobs& knobs) {
  return std::to_string(knobs.pointwise_block);
}

std::string channel_block_line(const std::string& channels) {
  return "BLOCK_C = min(32, triton.next_power_of_2(" + channels + "))";
}

// The rows of one program of _tile_rows (those of _tile, over rows 8192 long or more: one).
constexpr int64_t kOuterTileRows = 64;

// Under _tile_rows a program reads 512 elements a step, too few to keep memory busy from a few
// hundred programs: a channels-last mean over 3,844 positions of 16,384 rows (256 programs)
// ran at 0.280 ms unsplit and 0.115 ms in 4 chunks on an H100
// (docs/results/kernel_profile_h100_1206e.md).
bool split_rows(int64_t traced_rows, int64_t traced_cols, bool rows_contiguous) {
  int64_t programs =
      rows_contiguous ? (traced_rows + kOuterTileRows - 1) / kOuterTileRows : traced_rows;
  return programs < 1024 && traced_cols >= (rows_contiguous ? 1024 : 8192);
}

std::string tile_line(bool rows_contiguous, const std::string& rows, const std::string& cols,
                      int64_t elements) {
  std::string fewer = elements > 0 ? ", " + std::to_string(elements) : "";
  return "BLOCK_M, BLOCK_R = " + std::string(rows_contiguous ? "_tile_rows" : "_tile") + "(" +
         rows + ", " + cols + fewer + ")";
}

std::string row_tile_line(const std::string& rows, const std::string& cols) {
  return "BLOCK_M, BLOCK_R, WARPS = _row_tile(" + rows + ", " + cols + ")";
}

// A row of 16,384 read twice (softmax, an L2 normalization) found L2 only in part: a program
// a row, four warps each, kept about 130 MB in flight on an H200 (50 MB of L2), so the second
// read came from memory (l2_normalize 0.204 ms against Inductor's 0.128, one read).
bool row_fits(int64_t traced_cols, const CodegenKnobs& knobs) {
  return traced_cols <= 4 * knobs.tile_elements;
}

std::vector<std::string> row_tile_launch_options(const CodegenKnobs& knobs) {
  if (knobs.num_warps != 0) return {};
  return {"num_warps=WARPS"};
}

std::string split_line(const std::string& rows, const std::string& cols) {
  return "SPLIT, CHUNK, BLOCK_C = _split(" + rows + ", " + cols + ", BLOCK_M, BLOCK_R)";
}

std::string split_block() {
  return "triton.next_power_of_2(SPLIT)";
}

std::string one_program_block(const std::string& size) {
  if (!is_digits(size)) return "triton.next_power_of_2(" + size + ")";
  int64_t b = 1;
  while (b < std::stoll(size)) b *= 2;
  return std::to_string(b);
}

std::string stats_rows_block() {
  return "256";
}

std::string gemm_blocks_line(const std::string& m, const std::string& n, const std::string& k,
                             const std::string& batch, int itemsize, int extra_a, int extra_b) {
  std::string extra =
      extra_a || extra_b ? ", " + std::to_string(extra_a) + ", " + std::to_string(extra_b) : "";
  return "BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, WARPS, STAGES = _gemm_blocks(" + m + ", " + n + ", " +
         k + ", " + batch + ", " + std::to_string(itemsize) + extra + ")";
}

std::string gemm_tma_line(const std::string& a, const std::string& w, const std::string& m,
                          const std::string& n, const std::string& k, const std::string& batch,
                          int itemsize) {
  return "BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, WARPS, STAGES, A_DESC, B_DESC = _gemm_tma(" + a +
         ", " + w + ", " + m + ", " + n + ", " + k + ", " + batch + ", " +
         std::to_string(itemsize) + ")";
}

// _gemm_blocks's warps count unless the knob fixes every launch's (warps_args).
std::vector<std::string> gemm_launch_options(const CodegenKnobs& knobs) {
  std::vector<std::string> launch = {"num_stages=STAGES"};
  if (knobs.num_warps == 0) launch.insert(launch.begin(), "num_warps=WARPS");
  return launch;
}

std::string attention_blocks_line(const std::string& rows, const std::string& keys,
                                  const std::string& head, const std::string& head_v) {
  return "BLOCK_M, BLOCK_N, BLOCK_D, BLOCK_DV = _attention_blocks(" + rows + ", " + keys + ", " +
         head + ", " + head_v + ")";
}

std::string launch_helper(const std::string& name, const CodegenKnobs& knobs) {
  std::string tile = std::to_string(knobs.tile_elements);
  if (name == "_tile")
    return "def _tile(rows, cols, elements=" + tile +
           "):\n"
           "    \"\"\"Row tiles of about `elements`: BLOCK_R covers a row up to " +
           std::to_string(kMaxTileCols) +
           ", BLOCK_M rows.\"\"\"\n"
           "    block_r = min(triton.next_power_of_2(max(cols, 1)), " +
           std::to_string(kMaxTileCols) +
           ")\n"
           "    block_m = max(1, min(triton.next_power_of_2(max(rows, 1)), elements // block_r))\n"
           "    return block_m, block_r\n";
  // An eighth of the tile (64 rows by 8 columns): rows next to each other in memory are
  // read a few columns at a time, as Inductor's outer reductions read them; 64 by 64 held
  // too much in registers and read a sum over the middle dim of a 2 GB tensor at 44% of
  // an H200's memory speed (1.15 ms against eager's 0.49).
  std::string outer_tile = std::to_string(knobs.tile_elements / 8);
  if (name == "_tile_rows")
    return "def _tile_rows(rows, cols):\n"
           "    \"\"\"Tiles of about " +
           outer_tile +
           " elements over rows that lie next to each other in memory: BLOCK_M\n"
           "    covers up to " +
           std::to_string(kOuterTileRows) +
           " of them.\"\"\"\n"
           "    block_m = min(triton.next_power_of_2(max(rows, 1)), " +
           std::to_string(kOuterTileRows) +
           ")\n"
           "    block_r = max(1, min(triton.next_power_of_2(max(cols, 1)), " +
           outer_tile +
           " // block_m))\n"
           "    return block_m, block_r\n";
  // Few programs (16 rows of 4,096, a LayerNorm and its elementwise chain) each carried 32
  // elements a thread under 4 warps and ran at 0.47x torch.compile on an H200; a warp each 256
  // columns gives them 16, and torch.compile's speed (docs/results/row_warps_h100_1207.md).
  if (name == "_row_tile")
    return "def _row_tile(rows, cols):\n"
           "    \"\"\"Tiles of whole rows, about " +
           tile +
           " elements: BLOCK_R covers a row, BLOCK_M rows; a warp each 1024 columns,\n"
           "    or each 256 where there are too few programs to fill the GPU.\"\"\"\n"
           "    block_r = triton.next_power_of_2(max(cols, 1))\n"
           "    block_m = max(1, min(triton.next_power_of_2(max(rows, 1)), " +
           tile +
           " // block_r))\n"
           "    few = triton.cdiv(rows, block_m) < 256\n"
           "    return block_m, block_r, min(16, max(4, block_r // (256 if few else 1024)))\n";
  if (name == "_split")
    return "def _split(rows, cols, block_m, block_r):\n"
           "    \"\"\"Column chunks of a long reduction over few rows (about 1024 programs in "
           "all, a chunk\n    four tiles at least), and the rows of one combining program (its "
           "partials about\n    2048 elements a tensor: 32 rows of 1024 partials spilled "
           "registers on an H200).\"\"\"\n"
           "    row_blocks = triton.cdiv(rows, block_m)\n"
           "    split = max(1, min(triton.cdiv(cols, 4 * block_r), 1024 // row_blocks, 1024))\n"
           "    chunk = triton.cdiv(triton.cdiv(cols, split), block_r) * block_r\n"
           "    split = triton.cdiv(cols, chunk)\n"
           "    return split, chunk, max(1, min(block_m, 2048 // triton.next_power_of_2(split)))\n";
  if (name == "_attention_blocks")
    return "def _attention_blocks(rows, keys, head, head_v):\n"
           "    \"\"\"Tiles of the attention kernel: BLOCK_M query rows against BLOCK_N keys, the "
           "head dims\n    padded to a power of two (16 at least, tl.dot's smallest).\"\"\"\n"
           "    block_d = max(16, triton.next_power_of_2(head))\n"
           "    block_dv = max(16, triton.next_power_of_2(head_v))\n"
           "    block_m = min(64, max(16, triton.next_power_of_2(rows)))\n"
           "    block_n = min(32, max(16, triton.next_power_of_2(keys)))\n"
           "    return block_m, block_n, block_d, block_dv\n";
  if (name == "_gemm_blocks") {
    // gemm_tile's caps; "auto" sizes K steps by element size and route
    GemmTile tile = gemm_tile_caps(knobs.gemm_tile).value();
    std::string m = std::to_string(tile.m), n = std::to_string(tile.n);
    std::string k_steps = tile.k ? "K steps of " + std::to_string(tile.k) + " elements"
                                 : "K steps of 32 fp32 or 64 fp16\n    elements (64 either way "
                                   "through TMA)";
    std::string k_cap = tile.k ? std::to_string(tile.k) : "64 if itemsize == 2 or tma else 32";
    return "def _gemm_blocks(m, n, k, batch, itemsize, extra_a=0, extra_b=0, tma=False):\n"
           "    \"\"\"Tiles of a GEMM kernel: " +
           m + " x " + n +
           " (8 warps) when that gives the GPU enough programs, else\n    smaller, 16 at least "
           "(tl.dot's smallest); " +
           k_steps +
           ". Triton keeps each load\n    of the K loop in shared memory once per stage: "
           "extra loads (an operand that is an\n    expression) take stages away, then halve "
           "the tile, until all fit 160 KB (200 KB through\n    TMA, whose copies take no "
           "registers on the way).\"\"\"\n"
           "    block_m = min(" +
           m +
           ", max(16, triton.next_power_of_2(m)))\n"
           "    block_n = min(" +
           n +
           ", max(16, triton.next_power_of_2(n)))\n"
           "    if batch * triton.cdiv(m, block_m) * triton.cdiv(n, block_n) < 128:\n"
           "        block_m, block_n = min(block_m, 64), min(block_n, 64)\n"
           "    block_k = min(" +
           k_cap +
           ", max(16, triton.next_power_of_2(k)))\n"
           "    stages = 3 if itemsize == 4 else 4\n"
           "    limit = (200 if tma else 160) * 1024\n"
           "    smem = lambda bm, bn, s: s * block_k * ((bm + bn) * itemsize + (extra_a * bm + "
           "extra_b * bn) * 4)\n"
           "    while stages > 1 and smem(block_m, block_n, stages) > limit:\n"
           "        stages -= 1\n"
           "    while smem(block_m, block_n, stages) > limit and max(block_m, block_n) > 16:\n"
           "        block_m, block_n = (block_m // 2, block_n) if block_m >= block_n else "
           "(block_m, "
           "block_n // 2)\n"
           "    warps = 8 if block_m * block_n >= 128 * 128 else 4\n"
           "    return block_m, block_n, block_k, 8, warps, stages\n";
  }
  if (name == "_gemm_tma")
    return "def _gemm_tma(a, w, m, n, k, batch, itemsize):\n"
           "    \"\"\"A GEMM's tiles (_gemm_blocks) and, where Hopper's tensor memory "
           "accelerator (TMA) can\n    address its operands, descriptors of a and w as "
           "rows of k elements (a's m rows per batch\n    entry, or m in all; w's n "
           "likewise): TMA copies their tiles into shared memory (zeros\n    past the last "
           "row and past k), so the K loop does no address arithmetic and takes\n    steps "
           "of 64. Else None, None: the kernel's pointer loads. TMA needs contiguous rows of\n"
           "    16-byte multiples at 16-byte aligned addresses, and a GPU of compute "
           "capability 9\n    (Triton's interpreter has it too).\"\"\"\n"
           "    tma = (k * itemsize % 16 == 0 and a.is_contiguous() and w.is_contiguous()\n"
           "           and a.data_ptr() % 16 == 0 and w.data_ptr() % 16 == 0\n"
           "           and (not a.is_cuda or torch.cuda.get_device_capability(a.device)[0] >= "
           "9))\n"
           "    blocks = _gemm_blocks(m, n, k, batch, itemsize, tma=tma)\n"
           "    if not tma:\n"
           "        return blocks + (None, None)\n"
           "    block_m, block_n, block_k = blocks[:3]\n"
           "    return blocks + (TensorDescriptor(a, [a.numel() // k, k], [k, 1], [block_m, "
           "block_k]),\n"
           "                     TensorDescriptor(w, [w.numel() // k, k], [k, 1], [block_n, "
           "block_k]))\n";
  throw std::logic_error("codegen: no launch helper " + name);
}

namespace {

bool power_of_two(int v, int lo, int hi) {
  return v >= lo && v <= hi && (v & (v - 1)) == 0;
}

}  // namespace

// The knobs' ranges (codegen.h): a block or tile that is not a power of two cannot be a
// tl.arange extent, and Triton knows no other warp counts.
void check_knobs(const CodegenKnobs& k) {
  if (!power_of_two(k.pointwise_block, 64, 8192))
    throw std::invalid_argument(
        "codegen: pointwise_block must be a power of two in 64..8192, not " +
        std::to_string(k.pointwise_block));
  if (!power_of_two(k.tile_elements, 1024, 65536))
    throw std::invalid_argument(
        "codegen: tile_elements must be a power of two in 1024..65536, not " +
        std::to_string(k.tile_elements));
  if (k.num_warps != 0 && !power_of_two(k.num_warps, 1, 16))
    throw std::invalid_argument("codegen: num_warps must be 0 or 1, 2, 4, 8, 16, not " +
                                std::to_string(k.num_warps));
  if (k.layout != "nchw" && k.layout != "channels_last" && k.layout != "auto")
    throw std::invalid_argument("codegen: layout must be auto, nchw or channels_last, not " +
                                k.layout);
  if (k.sizes != "dynamic" && k.sizes != "static")
    throw std::invalid_argument("codegen: sizes must be dynamic or static, not " + k.sizes);
  if (k.recompute_limit < 0)
    throw std::invalid_argument("codegen: recompute_limit must be at least 0, not " +
                                std::to_string(k.recompute_limit));
  if (k.dot_precision != "tf32x3" && k.dot_precision != "ieee")
    throw std::invalid_argument("codegen: dot_precision must be tf32x3 or ieee, not " +
                                k.dot_precision);
  if (k.gemm != "auto" && k.gemm != "triton" && k.gemm != "library")
    throw std::invalid_argument("codegen: gemm must be auto, triton or library, not " + k.gemm);
  if (k.depthwise != "auto" && k.depthwise != "triton" && k.depthwise != "library")
    throw std::invalid_argument("codegen: depthwise must be auto, triton or library, not " +
                                k.depthwise);
  if (!gemm_tile_caps(k.gemm_tile))
    throw std::invalid_argument(
        "codegen: gemm_tile must be auto or MxNxK (M, N powers of two "
        "in 16..256, K in 16..128), not " +
        k.gemm_tile);
}

std::optional<GemmTile> gemm_tile_caps(const std::string& tile) {
  if (tile == "auto") return GemmTile{128, 128, 0};
  int m = 0, n = 0, k = 0;
  char x1 = 0, x2 = 0;
  std::istringstream in(tile);
  if (!(in >> m >> x1 >> n >> x2 >> k) || x1 != 'x' || x2 != 'x' || in.peek() != EOF)
    return std::nullopt;
  if (!power_of_two(m, 16, 256) || !power_of_two(n, 16, 256) || !power_of_two(k, 16, 128))
    return std::nullopt;
  return GemmTile{m, n, k};
}

}  // namespace drtriton::codegen

namespace drtriton {

CodegenKnobs draw_knobs(std::mt19937_64& rng) {
  static const std::vector<int> blocks = {256, 512, 1024, 2048}, tiles = {1024, 2048, 4096, 8192},
                                warps = {0, 1, 2, 4, 8}, limits = {0, 1, 2, 4, 16};
  auto pick = [&](const std::vector<int>& v) { return v[rng() % v.size()]; };
  CodegenKnobs k;
  k.pointwise_block = pick(blocks);
  k.tile_elements = pick(tiles);
  k.num_warps = pick(warps);
  k.recompute_limit = pick(limits);
  static const char* routes[] = {"auto", "triton", "library"};
  k.gemm = routes[rng() % 3];
  k.layout = rng() % 2 ? "channels_last" : "nchw";
  k.sizes = rng() % 2 ? "static" : "dynamic";
  return k;
}

std::vector<KnobChange> tuning_space(const CodegenKnobs& base) {
  auto halved_and_doubled = [](int v, int lo, int hi) {
    std::vector<std::string> out;
    if (v / 2 >= lo) out.push_back(std::to_string(v / 2));
    if (v * 2 <= hi) out.push_back(std::to_string(v * 2));
    return out;
  };
  // Both explicit layouts where base is auto: one of them gives auto's text, judged once.
  std::vector<std::pair<std::string, std::string>> space;
  for (const char* layout : {"nchw", "channels_last"})
    if (base.layout != layout) space.push_back({"layout", layout});
  space.push_back({"sizes", base.sizes == "static" ? "dynamic" : "static"});
  for (const char* route : {"triton", "library"})
    if (base.gemm != route) space.push_back({"gemm", route});
  for (const std::string& v : halved_and_doubled(base.pointwise_block, 64, 8192))
    space.push_back({"pointwise_block", v});
  for (const std::string& v : halved_and_doubled(base.tile_elements, 1024, 65536))
    space.push_back({"tile_elements", v});
  for (int warps : {4, 8})
    if (warps != base.num_warps) space.push_back({"num_warps", std::to_string(warps)});
  if (base.dot_precision != "ieee") space.push_back({"dot_precision", "ieee"});
  // Longer K steps (pointer loads take 32 fp32 by default), and a smaller tile: more programs
  // for a product of few rows (an RNN step's 256 rows tile into 64 programs by default).
  for (const char* tile : {"128x128x64", "32x64x32"})
    if (base.gemm_tile != tile) space.push_back({"gemm_tile", tile});
  // Depthwise convolutions all unrolled in the kernel that reads them, or all cuDNN's (auto
  // splits them by kind: docs/results/depthwise_h100_1207.md).
  for (const char* route : {"triton", "library"})
    if (base.depthwise != route) space.push_back({"depthwise", route});
  std::vector<KnobChange> changes;
  for (const auto& [name, value] : space) {
    changes.push_back({name, value, base});
    set_knob(changes.back().knobs, name, value);
  }
  return changes;
}

CodegenKnobs fallback_knobs(const CodegenKnobs& base) {
  CodegenKnobs k = base;
  k.gemm = "library";
  k.dot_precision = "ieee";
  return k;
}

void set_knob(CodegenKnobs& knobs, const std::string& name, const std::string& value) {
  struct IntKnob {
    const char* name;
    int CodegenKnobs::*field;
    const char* values;
  };
  static const IntKnob ints[] = {
      {"pointwise_block", &CodegenKnobs::pointwise_block, "a power of two in 64..8192"},
      {"tile_elements", &CodegenKnobs::tile_elements, "a power of two in 1024..65536"},
      {"num_warps", &CodegenKnobs::num_warps, "0, 1, 2, 4, 8 or 16"},
      {"recompute_limit", &CodegenKnobs::recompute_limit, "an integer of at least 0"},
  };
  CodegenKnobs changed = knobs;
  std::string allowed;
  if (name == "gemm") {
    changed.gemm = value;
    allowed = "auto, triton or library";
  }
  if (name == "layout") {
    changed.layout = value;
    allowed = "auto, nchw or channels_last";
  }
  if (name == "sizes") {
    changed.sizes = value;
    allowed = "dynamic or static";
  }
  if (name == "dot_precision") {
    changed.dot_precision = value;
    allowed = "tf32x3 or ieee";
  }
  if (name == "depthwise") {
    changed.depthwise = value;
    allowed = "auto, triton or library";
  }
  if (name == "gemm_tile") {
    changed.gemm_tile = value;
    allowed = "auto or MxNxK (M, N powers of two in 16..256, K in 16..128)";
  }
  for (const IntKnob& knob : ints) {
    if (name != knob.name) continue;
    allowed = knob.values;
    size_t used = 0;
    try {
      changed.*knob.field = std::stoi(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != value.size())
      throw std::invalid_argument("knob " + name + " takes " + allowed + ", not '" + value + "'");
  }
  if (allowed.empty()) {
    throw std::invalid_argument("no knob " + name +
                                "; the knobs are pointwise_block, tile_elements, num_warps, "
                                "recompute_limit, gemm, gemm_tile, layout, sizes, dot_precision, "
                                "depthwise");
  }
  try {
    codegen::check_knobs(changed);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("knob " + name + " takes " + allowed + ", not '" + value + "'");
  }
  knobs = changed;
}

}  // namespace drtriton
