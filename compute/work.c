#include "work.h"

static _Thread_local qmm_work last;

qmm_work qmm_work_last(void)
{
    return last;
}

void qmm_work_record(const qmm_work *w)
{
    last = *w;
}
