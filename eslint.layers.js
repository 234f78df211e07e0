// The layers of src/ and the imports each may make, enforced with ESLint's own no-restricted-imports.
//
//   transport  (stdio and HTTP framing)          imports server, protocol, contract
//   server     (connection, dispatch, shaping, pool, registry)   imports protocol, tools, resources, contract, domain
//   protocol   (JSON-RPC codec, _meta and eras, error codes)      imports contract
//   tools, resources (one file per tool; resource providers)    import contract, domain (tools may import tools)
//   prompts    (one file per prompt: text templates naming the tools they chain)    imports contract
//   contract   (what tools, resources, server and transports share)   imports domain
//   domain     (chemistry engine, ChEMBL service, canvas, network)     imports nothing above it
//
// The leaf modules config.ts, logger.ts, version.ts and environment.ts import no layer and may be imported by any; the
// entry points cli.ts, app.ts and doctor.ts wire the layers together and are imported by none of them.
// Imports are relative, so a pattern names the top folder of src/ reached through one or more "../".

const ENTRY_POINTS = ["cli", "commands", "app", "doctor"];
const LAYERS = ["transport", "server", "protocol", "tools", "resources", "prompts", "contract", "domain"];

/**
 * A no-restricted-imports rule that forbids the given top folders (and every entry point). `up` is how a
 * file reaches src/: one or more "../" from inside a layer, "./" from src/ itself.
 */
function forbid(layer, folders, up = "(\\.\\./)+") {
  const patterns = [
    ...folders.map((folder) => ({
      regex: `^${up}${folder}(/|\\.js$)`,
      message: `${layer} may not import ${folder}/ (README, "Design": the layers import one way).`,
    })),
    {
      regex: `^${up}(${ENTRY_POINTS.join("|")})\\.js$`,
      message: `${layer} may not import an entry point (cli, app, doctor): they wire the layers, nothing imports them.`,
    },
  ];
  return { "no-restricted-imports": ["error", { patterns }] };
}

const allowed = {
  transport: ["server", "protocol", "contract"],
  server: ["protocol", "tools", "resources", "contract", "domain"],
  protocol: ["contract"],
  tools: ["contract", "domain", "tools"],
  resources: ["contract", "domain", "resources"],
  prompts: ["contract", "prompts"],
  contract: ["domain", "contract"],
  domain: ["domain"],
};

export const layerRules = [
  ...LAYERS.map((layer) => ({
    files: [`src/${layer}/**/*.ts`],
    rules: forbid(
      layer,
      LAYERS.filter((other) => !allowed[layer].includes(other)),
    ),
  })),
  {
    files: ["src/config.ts", "src/logger.ts", "src/version.ts", "src/environment.ts"],
    rules: forbid("a leaf module", LAYERS, "\\./"),
  },
];
