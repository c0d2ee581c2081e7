// The operating system's sandbox around one verifier worker (the first layer of the threat
// model in src/eval/README.md). In the child forked for the worker, before exec:
// - new user, mount, PID, network and IPC namespaces;
// - the worker runs as PID 1 of its PID namespace, so when it dies the kernel kills every
//   process it left (a setsid daemon included); the forked child stays outside as the
//   process the pool waits for and kills, and exits with the worker's status;
// - a fresh /proc that shows only the namespace (not the service's command line or
//   environment); every mount read-only except the worker's scratch folder (and a private
//   tmpfs on /dev/shm); a network namespace with only a loopback that is down;
// - then a nested user namespace in which the worker is an ordinary user with no
//   capabilities, so it cannot undo any of this.
#pragma once

#include <string>

namespace drtriton {

enum class SandboxMode { kAuto, kOn, kOff };

// Everything the child needs, built before fork: between fork and exec a threaded process
// may only make async-signal-safe calls (no allocation).
struct SandboxPlan {
  std::string scratch;  // the only writable path
  std::string uid_map;  // "0 <outer uid> 1": root inside maps to the service's user
  std::string gid_map;
  std::string setgroups_path, uid_map_path, gid_map_path;  // "/proc/self/..."
};

SandboxPlan make_sandbox_plan(const std::string& scratch);

// Exit status of a child whose sandbox could not be set up (it says why on its stderr).
constexpr int kSandboxFailedStatus = 126;

// Called in the forked child with stdin/stdout/stderr in place. Returns in the process that
// must exec the worker; the forked child itself never returns (it waits for the worker and
// exits with its status). On any failure: a line on stderr, then _exit(kSandboxFailedStatus).
void enter_sandbox(const SandboxPlan& plan);

// Whether the sandbox can be set up on this machine: forks a child that does it all (with
// `scratch`, created if missing, as the writable folder) and checks that a write outside
// fails. "" when it works, else why not.
std::string probe_sandbox(const std::string& scratch);

}  // namespace drtriton
