// irqmod sweep under MPI: when mpirun (or srun) started this process among several, the ranks
// take the points in turn (point i to rank i mod N), rank 0 gathers their rows and writes the
// output, identical to one process's. Without MPI support built in (the IRQMOD_MPI option), or
// when not started by an MPI launcher, the world is one rank.
#pragma once

#include <string>
#include <vector>

namespace irqmod::cli {

struct MpiWorld {
  int rank = 0;
  int size = 1;
};

// Initialises MPI when the environment says a launcher started us (OMPI_COMM_WORLD_SIZE,
// PMIX_RANK, PMI_SIZE); finalised by finish_mpi.
MpiWorld start_mpi();
void finish_mpi(const MpiWorld& world);

// Every rank's `text` at rank 0, in rank order (empty elsewhere).
std::vector<std::string> gather_text(const MpiWorld& world, const std::string& text);
// Rank 0's `value` on every rank.
int broadcast_int(const MpiWorld& world, int value);

}  // namespace irqmod::cli
