import { describe, expect, it } from "vitest";
import { llamaGpuOption } from "../src/gpu.js";
import { useTinyModels } from "./helpers.js";

const models = useTinyModels();

describe("gpu setting", () => {
  it("maps cpu to no GPU, auto to auto, and a named GPU to auto minus the others", () => {
    expect(llamaGpuOption("cpu")).toBe(false);
    expect(llamaGpuOption("auto")).toBe("auto");
    expect(llamaGpuOption("cuda")).toEqual({ type: "auto", exclude: ["vulkan", "metal"] });
    expect(llamaGpuOption("vulkan")).toEqual({ type: "auto", exclude: ["cuda", "metal"] });
    expect(llamaGpuOption("metal")).toEqual({ type: "auto", exclude: ["cuda", "vulkan"] });
  });

  it("auto runs on the best installed build, never downloading or compiling", async () => {
    // Here only the CPU build is installed (the GPU packages are ignored optional dependencies).
    const embedder = await models.create({ modelPath: models.model, gpu: "auto" });
    const vector = await embedder.embedQuery("memory search");
    expect(vector).toHaveLength(32);
    expect([false, "cuda", "vulkan", "metal"]).toContain(embedder.gpu);
  });
});
