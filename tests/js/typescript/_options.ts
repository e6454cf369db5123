(globalThis as { optionsLoaded?: boolean }).optionsLoaded = true;
export interface Options { unit: "cm" | "in" }
