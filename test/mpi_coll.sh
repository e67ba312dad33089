#!/bin/sh
# coll_check (every collective, type, op, communicator shape and size; MPI_
# result compared with MPICH's PMPI_ result) at 2, 3, 4 ranks (--quick) and a
# reduced set at 8 ranks; the 4-rank run's report must show offloaded
# Allreduce calls.  TAP output.  See test/mpi/common.sh for the environment.
. "$(dirname "$0")/mpi/common.sh"

for np in 2 3 4; do
    rep=$tmp/coll$np.json
    withenv "MPIFPGA_REPORT=$rep" run_ok "coll_check --quick at -n $np" "$tmp/c$np" $np coll_check --quick
done
report_ok "-n 4 report: Allreduce offloaded, counts consistent" "$tmp/coll4.json" \
    'nranks==4' 'allreduce.offloaded>0' 'allreduce.offloaded_bytes>0' 'allreduce.modeled_us>0' \
    '*.offloaded<=*.calls' '*.offloaded_bytes<=*.bytes' 'reduce_scatter.calls>0' 'barrier.calls>0'
report_ok "-n 4 report: more than 1000 calls offloaded (summed over ranks)" "$tmp/coll4.json" \
    'reduce.offloaded+allreduce.offloaded+bcast.offloaded+scatter.offloaded+gather.offloaded+allgather.offloaded+reduce_scatter.offloaded+reduce_scatter_block.offloaded+barrier.offloaded>1000'
# Vectors longer than MPIFPGA_SEGMENT_BYTES go as several offloaded calls
# (the 29-bit processor-packet size field): 4 KiB pieces of 64 KiB vectors.
withenv "MPIFPGA_SEGMENT_BYTES=4K MPIFPGA_REPORT=$tmp/seg.json" run_ok \
    "coll_check with 4 KiB segments at -n 3: allreduce, reduce, bcast of 64 KiB" "$tmp/seg" 3 \
    coll_check --colls allreduce,reduce,bcast --sizes 8,64k --shapes world,scrambled
report_ok "segmented calls count once each, all offloaded" "$tmp/seg.json" \
    'allreduce.offloaded==allreduce.calls-allreduce.empty' 'bcast.offloaded>0' 'reduce.offloaded>0'
run_ok "coll_check at -n 8: allreduce, bcast; 8 B and 4 KiB" "$tmp/c8" 8 coll_check \
    --colls allreduce,bcast --sizes 8,4096
# The streaming trees (MPIFPGA_ALGORITHM=tree) on the 4-node torus the
# engine builds for -n 4 (world fits a tree; the other shapes fall back to
# the paper's algorithms), in modeled time: ranks enter skewed by their
# virtual clocks, the case that once tripped the watchdog.
withenv "MPIFPGA_ALGORITHM=tree MPIFPGA_MODELED_TIME=cpu MPIFPGA_REPORT=$tmp/tree.json" run_ok \
    "coll_check with streaming trees at -n 4: bcast, reduce, allreduce, allgather up to 256 KiB" \
    "$tmp/tree" 4 coll_check --colls bcast,reduce,allreduce,allgather --sizes 8,4100,256k
report_ok "tree run: bcast, reduce, allreduce, allgather offloaded (types MPICH must run fall back)" \
    "$tmp/tree.json" 'bcast.offloaded>250' 'allreduce.offloaded>200' 'reduce.offloaded>150' \
    'allgather.offloaded>0'
# Reduce_scatter's rings the same way, up to 64 KiB.  At 256 KiB MPICH 4.0
# itself aborts, without this library too (`mpiexec -n 4 coll_check --colls
# reduce_scatter --sizes 256k`): its pairwise algorithm, in place with uneven
# counts, moves rank r's block to the buffer's start with a memcpy whose
# ranges overlap when disps[r] < recvcounts[r] (yaksa's overlap assertion).
withenv "MPIFPGA_ALGORITHM=tree MPIFPGA_MODELED_TIME=cpu MPIFPGA_REPORT=$tmp/tree_rs.json" run_ok \
    "coll_check with streaming trees at -n 4: reduce_scatter, reduce_scatter_block up to 64 KiB" \
    "$tmp/tree_rs" 4 coll_check --colls reduce_scatter,reduce_scatter_block --sizes 8,4100,64k
report_ok "tree run: reduce_scatter and reduce_scatter_block offloaded" "$tmp/tree_rs.json" \
    'reduce_scatter.offloaded>100' 'reduce_scatter_block.offloaded>100'
# Aggregation in the fat tree's switches (001 sec. 4.4) through the plugin:
# 7 ranks on a radix-4 fat tree (3 hosts per leaf, the last leaf with one,
# two switch levels); world runs the tree, scrambled the leaves' algorithms.
withenv "MPIFPGA_TOPOLOGY=fattree:4 MPIFPGA_MODELED_TIME=cpu MPIFPGA_REPORT=$tmp/ft.json" run_ok \
    "coll_check on a fat tree at -n 7: bcast, reduce, allreduce, allgather" "$tmp/ft" 7 \
    coll_check --colls bcast,reduce,allreduce,allgather --sizes 8,4100 --shapes world,scrambled
report_ok "fat-tree run: all four offloaded" "$tmp/ft.json" 'nranks==7' 'bcast.offloaded>0' \
    'reduce.offloaded>0' 'allreduce.offloaded>0' 'allgather.offloaded>0'
withenv "MPIFPGA_TOPOLOGY=fattree:4 MPIFPGA_PPN=2 MPIFPGA_MODELED_TIME=cpu" run_ok \
    "the same with two ranks a node at -n 8 (MPIFPGA_PPN=2)" "$tmp/ft2" 8 \
    coll_check --colls bcast,reduce,allreduce,allgather --sizes 8,4100 --shapes world,scrambled
finish
