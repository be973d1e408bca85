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
if ! command -v cargo >/dev/null 2>&1; then
  [ -x "$HOME/.cargo/bin/cargo" ] || curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal >&2
  export PATH="$HOME/.cargo/bin:$PATH"
fi
# The Vulkan loader warns without a runtime directory.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
