#!/usr/bin/env node
import { enableCompileCache } from "./compile-cache.js";

// Before anything else loads: the compile cache covers only modules compiled after it is on, and
// static imports would all load before this line.
enableCompileCache();
await import("./main.js");
