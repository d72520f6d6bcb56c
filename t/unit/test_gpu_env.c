/*
 * test_gpu_env: what a step's task is told about its GPUs (noded/gpu_env.c).
 * --gpu-bind=verbose prints Slurm 22.05's line: the task's usable GPUs as
 * a hex mask counted as its CUDA numbers are (0-based within the step's
 * where ConstrainDevices hides the others, the node's indexes otherwise),
 * the step's GPUs by the node's index, how many local numbers were handed
 * out, and the task's GPUs by both numberings. gpu_env_cuda numbers a
 * batch script's GPUs as a task's are. gpu_bind_task with closest keeps a
 * task to the step's GPUs near its CPUs, the step's first when none is.
 */
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#include "noded/noded.h"
#include "xalloc.h"

int main(void)
{
	/* devices not hidden: the node's indexes throughout */
	char *l = gpu_bind_verbose(0x3, 0x2, 0);
	is_str(l, "gpu-bind: usable_gres=0x2; bit_alloc=0x3; local_inx=0; global_list=1; "
		  "local_list=1\n", "verbose line, node indexes");
	free(l);
	/* the step holds the node's GPUs 2,3 (hidden others): task gets 3,
	 * CUDA's 1 of 0,1 */
	l = gpu_bind_verbose(0xc, 0x8, 0xc);
	is_str(l, "gpu-bind: usable_gres=0x2; bit_alloc=0xc; local_inx=2; global_list=3; "
		  "local_list=1\n", "verbose line, local numbers under ConstrainDevices");
	free(l);
	l = gpu_bind_verbose(0xf0, 0xf0, 0xf0);
	is_str(l, "gpu-bind: usable_gres=0xf; bit_alloc=0xf0; local_inx=4; global_list=4,5,6,7; "
		  "local_list=0,1,2,3\n", "verbose line, all of the step's");
	free(l);

	/* a batch script's GPUs 4,5: CUDA 0,1 where hidden, 4,5 otherwise */
	strv_t env = { 0 };
	gpu_env_cuda(&env, 0x30, 0x30);
	is_str(env_get(&env, "CUDA_VISIBLE_DEVICES"), "0,1", "batch CUDA numbers 0-based when hidden");
	is_str(env_get(&env, "GPU_DEVICE_ORDINAL"), "0,1", "GPU_DEVICE_ORDINAL the same");
	strv_free(&env);
	gpu_env_cuda(&env, 0x30, 0);
	is_str(env_get(&env, "CUDA_VISIBLE_DEVICES"), "4,5", "node indexes when not hidden");
	strv_free(&env);

	/* closest: GPUs 0-3 near the task's CPUs of a step of 0-7 */
	is_int(gpu_bind_task("closest", 0xff, 0, 2, 0x0f), 0x0f, "closest: the near GPUs");
	is_int(gpu_bind_task("verbose,closest", 0xff, 1, 2, 0xf0), 0xf0, "verbose,closest");
	is_int(gpu_bind_task("closest", 0x0c, 1, 2, 0xf0), 0x04, "none near: the step's first");
	return done_testing();
}
