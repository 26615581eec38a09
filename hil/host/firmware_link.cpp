// The harness's end of the serial link (firmware_link.hpp).
#include "firmware_link.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace talus_hil {

bool FirmwareLink::start_native(const std::string& program, std::string& err) {
  int to_child[2], from_child[2];
  if (pipe(to_child) != 0 || pipe(from_child) != 0) {
    err = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  pid_ = fork();
  if (pid_ < 0) {
    err = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid_ == 0) {
    dup2(to_child[0], 0);
    dup2(from_child[1], 1);
    for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) close(fd);
    execl(program.c_str(), program.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  wfd_ = to_child[1];
  rfd_ = from_child[0];
  signal(SIGPIPE, SIG_IGN);
  return true;
}

bool FirmwareLink::start_qemu(const std::string& elf, const std::string& machine, std::string& err) {
  // A free port: bind to port 0, read it back, close (QEMU binds it a moment later).
  int probe = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (probe < 0 || bind(probe, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(probe, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    err = std::string("finding a free TCP port: ") + std::strerror(errno);
    return false;
  }
  const int port = ntohs(a.sin_port);
  close(probe);
  const std::string serial = "tcp:127.0.0.1:" + std::to_string(port) + ",server=on,wait=on,nodelay=on";
  pid_ = fork();
  if (pid_ < 0) {
    err = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  x86_ = machine == "pc";
  const char* qemu = x86_ ? "qemu-system-i386" : "qemu-system-arm";
  if (pid_ == 0) {
    const int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(2, 1);  // QEMU's, semihosting's and COM1's text to the harness's stderr, never into the link
    const char* icount = std::getenv("HIL_QEMU_ICOUNT");
    if (x86_) {
      // COM1 (the log) on stdio, COM2 (the link) on the socket; isa-debug-exit for the exit
      // code; sleep=off: an idle (hlt) guest does not follow the host clock either.
      execlp(qemu, qemu, "-M", "pc", "-display", "none", "-monitor", "none", "-no-reboot", "-device",
             "isa-debug-exit,iobase=0xf4,iosize=0x04", "-icount", icount ? icount : "shift=3,sleep=off", "-serial",
             "stdio", "-serial", serial.c_str(), "-kernel", elf.c_str(), static_cast<char*>(nullptr));
    } else {
      execlp(qemu, qemu, "-M", machine.c_str(), "-display", "none", "-monitor", "none", "-semihosting-config",
             "enable=on,target=native", "-icount", icount ? icount : "shift=3", "-serial", serial.c_str(), "-kernel",
             elf.c_str(), static_cast<char*>(nullptr));
    }
    _exit(127);
  }
  for (int attempt = 0; attempt < 200; ++attempt) {  // up to ~10 s for QEMU to listen
    if (connect_loopback(port, 1)) return true;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      err = std::string(qemu) + " exited before its serial port opened (is it installed? tools/setup-debian.sh)";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  err = std::string("could not connect to QEMU's ") + (x86_ ? "COM2" : "UART0") + " on port " + std::to_string(port);
  return false;
}

bool FirmwareLink::connect_tcp(int port, std::string& err) {
  if (connect_loopback(port, 1)) return true;
  err = "could not connect to 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(errno);
  return false;
}

bool FirmwareLink::connect_loopback(int port, int attempts) {
  for (int attempt = 0; attempt < attempts; ++attempt) {
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<std::uint16_t>(port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(s, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0) {
      int one = 1;
      setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      rfd_ = wfd_ = s;
      signal(SIGPIPE, SIG_IGN);
      return true;
    }
    close(s);
  }
  return false;
}

bool FirmwareLink::write(const std::uint8_t* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(wfd_, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

long FirmwareLink::read(std::uint8_t* data, std::size_t n, int timeout_ms) {
  pollfd p{rfd_, POLLIN, 0};
  const int r = poll(&p, 1, timeout_ms);
  if (r == 0) return 0;
  if (r < 0) return errno == EINTR ? 0 : -1;
  const ssize_t got = ::read(rfd_, data, n);
  if (got <= 0) return -1;
  return got;
}

int FirmwareLink::wait_exit(int timeout_ms) {
  if (pid_ < 0) return -1;
  for (int t = 0; t < timeout_ms; t += 10) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      if (!WIFEXITED(status)) return 128 + WTERMSIG(status);
      const int code = WEXITSTATUS(status);
      // qemu-system-i386: the program's code v leaves through isa-debug-exit as (v << 1) | 1;
      // an even status (QEMU's own 0: a triple fault under -no-reboot, a shutdown) is no exit
      // of the program's.
      if (x86_) return (code & 1) ? code >> 1 : 99;
      return code;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop();
  return -1;
}

void FirmwareLink::stop() {
  if (wfd_ >= 0 && wfd_ != rfd_) close(wfd_);
  if (rfd_ >= 0) close(rfd_);
  rfd_ = wfd_ = -1;
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
}

}  // namespace talus_hil
