import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { parseZtunnelVersion, ztunnelVersionOf } from './ztunnel-version.ts';

// What istio/ztunnel 1.30.3 prints for `ztunnel version` (../shared/ztunnel/1.30.3/BUILD.txt).
const BUILD_INFO =
  'version.BuildInfo{Version:"1.30.3", GitRevision:"a45c62f8d09a78eaa5228afcea6c7d3a06269b2c", RustVersion:"1.95.0", BuildProfile:"quick-release", BuildStatus:"Modified", IstioVersion:"unknown", CryptoProvider:"tls-aws-lc"}';

it("reads the release from ztunnel's BuildInfo line, not from anything around it", () => {
  assert.equal(parseZtunnelVersion(BUILD_INFO), '1.30.3');
  // RustVersion and IstioVersion end in "Version" too: only the field itself counts.
  assert.equal(parseZtunnelVersion('RustVersion:"1.95.0", IstioVersion:"1.28.0"'), undefined);
  assert.equal(parseZtunnelVersion('ztunnel 1.30.3'), undefined);
});

it('asks the binary itself: its answer, unknown when it gives none, empty for ours', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ztunnel-version-'));
  try {
    const answers = join(dir, 'answers');
    writeFileSync(answers, `#!/bin/sh\n[ "$1" = version ] && echo '${BUILD_INFO}'\n`);
    const silent = join(dir, 'silent');
    writeFileSync(silent, '#!/bin/sh\nexit 3\n');
    chmodSync(answers, 0o755);
    chmodSync(silent, 0o755);
    assert.equal(ztunnelVersionOf(answers), '1.30.3');
    assert.equal(ztunnelVersionOf(silent), 'unknown');
    assert.equal(ztunnelVersionOf(join(dir, 'absent')), 'unknown');
    assert.equal(ztunnelVersionOf(''), '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
