// A child process for the artifact crash test: starts a put whose stream writes three chunks, says so on stdout,
// then never ends, so that the test can SIGKILL it in the middle of the upload.
import { postgresStores } from '../index.js'

const [databaseUrl, schema] = process.argv.slice(2) as [string, string]
const stores = postgresStores({ connectionString: databaseUrl, schema })
await stores.migrate()
const chunkSize = 256 * 1024

async function* stalled(): AsyncGenerator<Uint8Array> {
  for (let index = 0; index < 3; index++) yield new Uint8Array(chunkSize).fill(index + 1)
  // Asked for a fourth chunk: the three full ones are written.
  process.stdout.write('written\n')
  await new Promise(() => {})
}

await stores.artifacts.put(stalled())
