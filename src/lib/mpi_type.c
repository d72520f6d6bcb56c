/*
 * mpi_type: see mpi_type.h.
 */
#include <string.h>

#include "mpi_type.h"

static const struct {
	const char *name;
	int type;
} types[] = {
	{ "none", MPI_TYPE_NONE },
	{ "pmi2", MPI_TYPE_PMI2 },
	{ "pmix", MPI_TYPE_PMIX },
	{ "pmix_v4", MPI_TYPE_PMIX },
};

int mpi_type_parse(const char *name)
{
	if (!name || !*name)
		return MPI_TYPE_NONE;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(name, types[i].name))
			return types[i].type;
	return -1;
}

int mpi_type_supported(int type)
{
	return type == MPI_TYPE_NONE || type == MPI_TYPE_PMI2 || type == MPI_TYPE_PMIX;
}

void mpi_type_list(FILE *fp)
{
	/* Slurm 22.05 prints the plugins it finds, then, when there are
	 * versioned pmix ones, a line naming them */
	fputs("MPI plugin types are...\n", fp);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (mpi_type_supported(types[i].type) && strcmp(types[i].name, "pmix_v4"))
			fprintf(fp, "\t%s\n", types[i].name);
	fputs("specific pmix plugin versions available: pmix_v4\n", fp);
}
