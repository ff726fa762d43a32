/* removed when the CLI lands */ typedef int fxcli_placeholder;
