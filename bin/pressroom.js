#!/usr/bin/env node
// Entry for the installed `pressroom` command; the compiled CLI lives in dist/.
import '../dist/cli/main.js';
