// Launch configurations (internal to codegen): the blocks, tiles and warps of each kernel,
// decided apart from what the kernel computes, so that a tuner can change them without
// touching an emitter. Most sizes are only known at run time: a choice here is then a line of
// the forward that calls a host helper of the solution (_tile, _gemm_blocks, ...), and
// launch_helper gives that helper's source. The knobs of codegen.h set the defaults.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/codegen.h"

namespace drtriton::codegen {

// Throws std::invalid_argument for a knob out of its range (codegen.h).
void check_knobs(const CodegenKnobs& knobs);

// num_warps of every launch, when the knob fixes it: {"num_warps=8"}, else none.
std::vector<std::string> warps_args(const CodegenKnobs& knobs);

// BLOCK of a pointwise kernel: elements per program.
std::string pointwise_block(const CodegenKnobs& knobs);
// The forward's line that sets BLOCK_C, the channels of a tile that writes NCHW from
// channels-last buffers (its positions: pointwise_block // BLOCK_C).
std::string channel_block_line(const std::string& channels);

// Whether a statistics kernel splits its rows into column chunks, from the traced sizes:
// fewer programs than a GPU has room for (a program a row, or 64 rows next to each other in
// memory), each over a long row.
bool split_rows(int64_t traced_rows, int64_t traced_cols, bool rows_contiguous);
// The widest BLOCK_R of _tile: a tile of this many elements is one row a program.
constexpr int64_t kMaxTileCols = 1024;
// The forward's line that sets a row tile's BLOCK_M and BLOCK_R (about knobs.tile_elements,
// or `elements` where given): _tile_rows when consecutive rows are consecutive in memory,
// else _tile.
std::string tile_line(bool rows_contiguous, const std::string& rows, const std::string& cols,
                      int64_t elements = 0);
// Whole rows of a one-pass normalization (lower_in_one_pass): whether a row of the traced
// length fits in registers (four tiles of tile_elements: 16,384 by default), the forward's
// line that sets BLOCK_M, BLOCK_R and WARPS (a warp for each 1024 columns, 4 at least: 32
// values a thread; each 256 where fewer than 256 programs), and the launch's options
// (num_warps=WARPS unless the knob fixes every launch's).
bool row_fits(int64_t traced_cols, const CodegenKnobs& knobs);
std::string row_tile_line(const std::string& rows, const std::string& cols);
std::vector<std::string> row_tile_launch_options(const CodegenKnobs& knobs);
// The forward's line that sets SPLIT and CHUNK, the column chunks of a split statistics
// kernel, and BLOCK_C, the rows of one program of the kernel that combines them (with
// split_block, its block over SPLIT).
std::string split_line(const std::string& rows, const std::string& cols);
std::string split_block();
// The block of a one-program kernel over `size` channels: the power of two at or above it.
std::string one_program_block(const std::string& size);
// The block of a kernel over the rows of statistics (an instance norm's running ones).
std::string stats_rows_block();

// The forward's line that sets a GEMM's BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, WARPS and
// STAGES for an m x n x k product over `batch` entries of `itemsize`-byte elements, and the
// launch options that use them. `extra_a` and `extra_b`: the loads of the K loop beyond one
// per operand (an operand that is an expression, a normalization fused into it), each of
// which Triton keeps in shared memory once per stage.
std::string gemm_blocks_line(const std::string& m, const std::string& n, const std::string& k,
                             const std::string& batch, int itemsize, int extra_a = 0,
                             int extra_b = 0);
// The same for a GEMM that may read its operands `a` [.., m, k] and `w` [.., n, k] through TMA
// (_gemm_tma), setting A_DESC and B_DESC too (None where TMA cannot address them).
std::string gemm_tma_line(const std::string& a, const std::string& w, const std::string& m,
                          const std::string& n, const std::string& k, const std::string& batch,
                          int itemsize);
std::vector<std::string> gemm_launch_options(const CodegenKnobs& knobs);
// The gemm_tile knob's caps on a GEMM tile; k is 0 for "auto" (by element size); nullopt for
// a value out of its range (codegen.h).
struct GemmTile {
  int m, n, k;
};
std::optional<GemmTile> gemm_tile_caps(const std::string& tile);
// The forward's line that sets the attention kernel's BLOCK_M, BLOCK_N, BLOCK_D, BLOCK_DV.
std::string attention_blocks_line(const std::string& rows, const std::string& keys,
                                  const std::string& head, const std::string& head_v);

// The source of the host helper `name` ("_tile", "_tile_rows", "_split", "_attention_blocks",
// "_gemm_blocks", "_gemm_tma") that the lines above call.
std::string launch_helper(const std::string& name, const CodegenKnobs& knobs);

}  // namespace drtriton::codegen
