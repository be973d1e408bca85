# Sourced by scripts/bench and scripts/test: install whatever is missing on Debian or Ubuntu
# (as root or through sudo), then put cargo on PATH.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
# Build: Debian's static shaderc/glslang/SPIRV-Tools (linked through .cargo/config.toml).
# Run: the Vulkan loader and lavapipe (Mesa's CPU driver). Tests: the validation layers.
PKGS="ca-certificates curl gcc libc6-dev libshaderc-dev glslang-dev spirv-tools libvulkan1 mesa-vulkan-drivers vulkan-validationlayers"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "installing:$missing" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# Rust: at least Cargo.toml's rust-version (a distribution's older rustc, Debian 12's 1.63 for
# one, cannot build the locked dependencies): rustup's stable toolchain where the one on PATH
# is missing or older.
need_rust=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
rust_ok() {
  local have
  have=$(rustc --version 2>/dev/null | cut -d' ' -f2) || return 1
  [ -n "$have" ] && [ "$(printf '%s\n%s\n' "$need_rust" "$have" | sort -V | head -n 1)" = "$need_rust" ]
}
if ! rust_ok; then
  export PATH="$HOME/.cargo/bin:$PATH"
  if ! rust_ok; then
    echo "installing Rust $need_rust or later (rustup, stable)" >&2
    if command -v rustup >/dev/null 2>&1; then
      rustup toolchain install stable --profile minimal >&2 && rustup default stable >&2
    else
      curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal >&2
    fi
    rust_ok || { echo "error: Rust $need_rust or later is needed; found $(rustc --version 2>/dev/null || echo none)" >&2; exit 1; }
  fi
fi
# The Vulkan loader warns without a runtime directory.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
