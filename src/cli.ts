// Entry point of the `parts-mcp` command.
process.stderr.write("parts-mcp: not yet wired\n");
