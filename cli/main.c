/* placeholder until the CLI lands */
#include "fxkit/fxkit.h"
#include <stdio.h>
int main(void) { printf("fxkit %s\n", fx_version()); return 0; }
