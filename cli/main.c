/* fxkit — the command-line program. Everything lives in the CLI library
 * (every other file in cli/), so that tests can call the parser and the driver directly. */
#include "cli.h"

int main(int argc, char **argv)
{
    return fxcli_main(argc, argv);
}
