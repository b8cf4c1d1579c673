#!/bin/sh
# guest (cwd = run dir): run /work/scratch/offline/test_memcg_accuracy.new N times
n=$(cat n 2>/dev/null || echo 3)
i=1
while [ $i -le $n ]; do
	/work/scratch/offline/test_memcg_accuracy.new > run$i.tap 2>&1
	echo "rc $?" >> run$i.tap
	i=$((i + 1))
done
echo 0 > guest-rc
