/*
 * mpi_type: the MPI plugin types srun knows (--mpi=, SLURM_MPI_TYPE,
 * slurm.conf's MpiDefault) and the list `srun --mpi=list` prints. One
 * table, so srun's check, the list and the node side (which serves PMI
 * when the step's SLURM_MPI_TYPE says pmi2 or pmix) agree.
 */
#ifndef SLUICE_MPI_TYPE_H
#define SLUICE_MPI_TYPE_H

#include <stdio.h>

enum mpi_type {
	MPI_TYPE_NONE = 0,
	MPI_TYPE_PMI2,        /* PMI-2 and PMI-1 wire protocols on PMI_FD (noded/pmi2.c) */
	MPI_TYPE_PMIX,        /* pmix, pmix_v4: OpenPMIx's server (noded/pmix_srv.c) */
};

/* The type a name stands for, or -1 for a name Slurm 22.05 would not
 * load either. NULL or "" is none. */
int mpi_type_parse(const char *name);

/* Whether this build serves the type (all it names). */
int mpi_type_supported(int type);

/* `srun --mpi=list`: Slurm 22.05's lines, the types this build serves. */
void mpi_type_list(FILE *fp);

#endif
