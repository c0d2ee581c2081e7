#include "eval/sandbox.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

namespace fs = std::filesystem;

namespace drtriton {

namespace {

// From linux/mount.h, which glibc 2.36's sys/mount.h cannot be included with.
struct MountAttr {
  uint64_t attr_set, attr_clr, propagation, userns_fd;
};
constexpr uint64_t kMountAttrRdonly = 0x1, kMountAttrNosuid = 0x2;
constexpr unsigned kAtRecursive = 0x8000;
#ifndef SYS_mount_setattr
constexpr long kSysMountSetattr = 442;  // the same number on every architecture
#else
constexpr long kSysMountSetattr = SYS_mount_setattr;
#endif

// The uid the worker has inside its innermost namespace: an ordinary user, so exec drops
// every capability it had while setting the sandbox up.
constexpr const char* kInnerUidMap = "1000 0 1";

// Async-signal-safe reporting: the failing step and errno, on stderr, then exit.
[[noreturn]] void fail(const char* step) {
  int err = errno;
  char digits[16];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + err % 10);
    err /= 10;
  } while (err > 0 && n < 15);
  char line[256];
  size_t len = 0;
  auto add = [&](const char* s) {
    while (*s && len < sizeof line - 1) line[len++] = *s++;
  };
  add("drtriton sandbox: ");
  add(step);
  add(" failed (errno ");
  while (n > 0 && len < sizeof line - 1) line[len++] = digits[--n];
  add(")\n");
  [[maybe_unused]] ssize_t w = ::write(2, line, len);
  ::_exit(kSandboxFailedStatus);
}

bool write_file(const char* path, const char* text) {
  int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t len = std::strlen(text);
  bool ok = ::write(fd, text, len) == static_cast<ssize_t>(len);
  ::close(fd);
  return ok;
}

// unshare(CLONE_NEWUSER) and map the caller's outer ids to `uid_map`/`gid_map` inside.
void enter_user_namespace(const SandboxPlan& plan, int extra_flags, const char* uid_map,
                          const char* gid_map) {
  if (::unshare(CLONE_NEWUSER | extra_flags) != 0) fail("unshare");
  // setgroups must be denied before an unprivileged gid_map can be written.
  if (!write_file(plan.setgroups_path.c_str(), "deny")) fail("writing setgroups");
  if (!write_file(plan.uid_map_path.c_str(), uid_map)) fail("writing uid_map");
  if (!write_file(plan.gid_map_path.c_str(), gid_map)) fail("writing gid_map");
}

int mount_setattr(const char* path, uint64_t set, uint64_t clear) {
  MountAttr attr{set, clear, 0, 0};
  return static_cast<int>(
      ::syscall(kSysMountSetattr, AT_FDCWD, path, kAtRecursive, &attr, sizeof attr));
}

// In the namespace's PID 1: the file system view.
void set_up_mounts(const SandboxPlan& plan) {
  const char* scratch = plan.scratch.c_str();
  // Nothing done here may propagate back to the service's mounts.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) fail("making / private");
  // The scratch folder becomes a mount of its own, so it can stay writable below.
  if (::mount(scratch, scratch, nullptr, MS_BIND | MS_REC, nullptr) != 0) fail("binding scratch");
  if (mount_setattr("/", kMountAttrRdonly | kMountAttrNosuid, 0) != 0) fail("making / read-only");
  if (mount_setattr(scratch, 0, kMountAttrRdonly) != 0) fail("making scratch writable");
  // A /proc of this PID namespace: the service's processes are not in it. Mounted after the
  // read-only pass, since the nested user namespace's maps are written there; what a process
  // without capabilities may write in it concerns only its own namespace's processes.
  if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
    fail("mounting /proc");
  }
  // Python's multiprocessing needs a writable /dev/shm; a private one is not shared with
  // anything outside.
  if (::access("/dev/shm", F_OK) == 0 &&
      ::mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=1g,mode=1777") != 0) {
    fail("mounting /dev/shm");
  }
}

}  // namespace

SandboxPlan make_sandbox_plan(const std::string& scratch) {
  SandboxPlan plan;
  plan.scratch = fs::absolute(scratch).lexically_normal().string();
  plan.uid_map = "0 " + std::to_string(::geteuid()) + " 1";
  plan.gid_map = "0 " + std::to_string(::getegid()) + " 1";
  plan.setgroups_path = "/proc/self/setgroups";
  plan.uid_map_path = "/proc/self/uid_map";
  plan.gid_map_path = "/proc/self/gid_map";
  return plan;
}

void enter_sandbox(const SandboxPlan& plan) {
  enter_user_namespace(plan, CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC,
                       plan.uid_map.c_str(), plan.gid_map.c_str());
  pid_t worker = ::fork();  // the first process in the new PID namespace: its PID 1
  if (worker < 0) fail("fork");
  if (worker > 0) {
    // Outside: hold no end of the worker's pipes (only the namespace may keep them open, and
    // it dies with the worker), wait, and end the way the worker ended.
    ::close(0);
    ::close(1);
    int status = 0;
    while (::waitpid(worker, &status, 0) < 0) {
      if (errno != EINTR) ::_exit(kSandboxFailedStatus);
    }
    if (WIFSIGNALED(status)) {
      ::signal(WTERMSIG(status), SIG_DFL);
      ::kill(::getpid(), WTERMSIG(status));
    }
    ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  // The forked child outside keeps PR_SET_PDEATHSIG on the service; this one dies with it.
  // (If that child died in the instant before this call, the worker still ends: its stdin
  // closes with the service.)
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  set_up_mounts(plan);
  enter_user_namespace(plan, 0, kInnerUidMap, kInnerUidMap);
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

std::string probe_sandbox(const std::string& scratch) {
  std::error_code ec;
  fs::create_directories(scratch, ec);
  SandboxPlan plan = make_sandbox_plan(scratch);
  std::string outside = (fs::path(plan.scratch).parent_path() /
                         (".drtriton-sandbox-probe-" + std::to_string(::getpid())))
                            .string();
  std::string inside = (fs::path(plan.scratch) / ".probe").string();
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return std::string("pipe: ") + std::strerror(errno);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(report[0]), ::close(report[1]);
    return std::string("fork: ") + std::strerror(errno);
  }
  if (pid == 0) {
    ::dup2(report[1], 2);
    enter_sandbox(plan);
    int fd = ::open(inside.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) fail("writing inside scratch");
    ::close(fd);
    fd = ::open(outside.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      const char msg[] = "drtriton sandbox: a file outside scratch could be written\n";
      [[maybe_unused]] ssize_t w = ::write(2, msg, sizeof msg - 1);
      ::_exit(kSandboxFailedStatus);
    }
    ::_exit(0);
  }
  ::close(report[1]);
  std::string why;
  char buf[512];
  for (ssize_t n; (n = ::read(report[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    why.append(buf, static_cast<size_t>(n));
  }
  ::close(report[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  fs::remove(outside, ec);
  fs::remove(inside, ec);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
  if (why.rfind("drtriton sandbox: ", 0) == 0) why.erase(0, 18);
  return why.empty() ? "the probe ended with status " + std::to_string(status) : why;
}

}  // namespace drtriton
