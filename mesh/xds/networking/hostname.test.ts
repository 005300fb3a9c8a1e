import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  intersectHosts,
  isHostSubsetOf,
  resolveGatewayName,
  resolveShortname,
  serverHostsFor,
  serviceOfHost,
} from './hostname.ts';

describe('Istio host names', () => {
  it('resolves short hosts in the namespace and leaves dotted ones, `*` and addresses alone', () => {
    const table: [string, string][] = [
      ['httpbin', 'httpbin.load.svc.cluster.local'],
      ['httpbin.load', 'httpbin.load'],
      ['httpbin.load.svc.cluster.local', 'httpbin.load.svc.cluster.local'],
      ['*', '*'],
      ['*.example.com', '*.example.com'],
      ['10.1.2.3', '10.1.2.3'],
    ];
    for (const [host, want] of table) assert.equal(resolveShortname(host, 'load'), want, host);
  });

  it('resolves gateway names as istiod: ns/name, ./name, short, legacy FQDN; mesh untouched', () => {
    const table: [string, string][] = [
      ['istio-system/ingress', 'istio-system/ingress'],
      ['./gw', 'load/gw'],
      ['gw', 'load/gw'],
      ['gw.other.svc.cluster.local', 'other/gw'],
      ['gw.other', 'other/gw'],
      ['mesh', 'mesh'],
    ];
    for (const [name, want] of table) assert.equal(resolveGatewayName(name, 'load'), want, name);
  });

  it('a host is a subset of a wildcard ending it, a narrower wildcard of a wider one, not the reverse', () => {
    assert.equal(isHostSubsetOf('a.example.com', '*.example.com'), true);
    assert.equal(isHostSubsetOf('a.example.com', '*'), true);
    assert.equal(isHostSubsetOf('*.a.example.com', '*.example.com'), true);
    assert.equal(isHostSubsetOf('*.example.com', '*.a.example.com'), false);
    assert.equal(isHostSubsetOf('*.example.com', 'a.example.com'), false);
    assert.equal(isHostSubsetOf('a.example.com', 'b.example.com'), false);
  });

  it('intersects server and VirtualService hosts to the narrower of each pair, once', () => {
    assert.deepEqual(intersectHosts(['*'], ['a.example.com', 'b.example.com']), [
      'a.example.com',
      'b.example.com',
    ]);
    assert.deepEqual(intersectHosts(['a.example.com', 'b.example.com'], ['*.example.com']), [
      'a.example.com',
      'b.example.com',
    ]);
    assert.deepEqual(intersectHosts(['a.example.com', '*'], ['a.example.com']), ['a.example.com']);
    assert.deepEqual(intersectHosts(['a.example.com'], ['b.example.com']), []);
  });

  it("keeps a server's ns/host only for a VirtualService in that namespace (or */)", () => {
    assert.deepEqual(
      serverHostsFor(['load/a.example', 'other/b.example', '*/c.example', 'd.example'], 'load'),
      ['a.example', 'c.example', 'd.example'],
    );
  });

  it('names the Service of a cluster.local FQDN only', () => {
    assert.deepEqual(serviceOfHost('httpbin.load.svc.cluster.local'), { namespace: 'load', name: 'httpbin' });
    assert.equal(serviceOfHost('httpbin.load'), undefined);
    assert.equal(serviceOfHost('httpbin.org'), undefined);
  });
});
