#!/usr/bin/env node
import { runBench } from "./program.js";

process.exitCode = await runBench(process.argv.slice(2));
