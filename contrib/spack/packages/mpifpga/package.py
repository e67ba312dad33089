# Spack recipe for MPI-FPGA (issue 22).  Use it from a checkout:
#   spack repo add contrib/spack
#   spack dev-build --source-path $PWD mpifpga@develop+fpga    # this tree
# or point `url` / `version` at a `make dist` tarball you publish.
from spack.package import *


class Mpifpga(AutotoolsPackage):
    """MPI-FPGA: MPICH's collectives offloaded, unmodified, to an in-switch
    FPGA collective engine -- on boards, or (the default) on a bundled
    cycle-level model of the whole switch network (3D torus or fat tree).
    Installs libmpifpga (LD_PRELOAD), mpifpga-run, mpifpga-sim,
    mpifpga-switchd, mpifpga-info, mpifpga-osu, mpifpga-compare(-app), man
    pages, pkg-config metadata and the wire-format headers."""

    # No public home yet: build a checkout with `spack dev-build` (above), or
    # set `git` (and version("develop", branch="main")) / `url` with
    # version("0.1", sha256=...) to where you publish `make dist` tarballs.
    version("develop")

    # model-only (default): the engine is mpifpga-switchd, the modeled
    # network; +fpga: also find MPI-FPGA boards (MPIFPGA_DEVICE=fpga), which
    # needs hwloc's PCI discovery.
    variant("fpga", default=False, description="discover MPI-FPGA boards (hwloc with PCI)")
    variant("plots", default=True, description="gnuplot figures from mpifpga-compare")
    variant("sanitizers", default=False,
            description="build with AddressSanitizer + UBSan (for make check-unit)")

    depends_on("c", type="build")
    depends_on("autoconf", type="build")
    depends_on("automake", type="build")
    depends_on("libtool", type="build")
    depends_on("pkgconfig", type="build")

    depends_on("mpich@4.0:")
    depends_on("hwloc")
    depends_on("hwloc+pci", when="+fpga")
    depends_on("libfabric")
    depends_on("json-c")
    depends_on("python@3:", type="run")
    depends_on("gnuplot", type="run", when="+plots")

    def autoreconf(self, spec, prefix):
        Executable("./autogen.sh")()

    def configure_args(self):
        return self.enable_or_disable("sanitizers")

    def check(self):
        make("check-unit")
