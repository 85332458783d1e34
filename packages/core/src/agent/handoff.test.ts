import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Agent, AgentRuntime, defineTool, Extensions, handoff, memoryStores, mockModel, type AgentEvent } from '../index.js'

describe('handoff', () => {
  it('hands the rest of the run to another agent on the same session and history', async () => {
    const refunds: string[] = []
    const refund = defineTool({
      name: 'refund',
      description: 'refunds an order',
      inputSchema: z.object({ order: z.string() }),
      execute: ({ order }) => refunds.push(order),
    })
    const billingModel = mockModel([{ toolCalls: [{ name: 'refund', args: { order: '1042' } }] }, { text: 'Order 1042 is refunded.' }])
    const billing = new Agent({ name: 'billing', instructions: 'You handle refunds.', model: billingModel, tools: { refund } })
    const triageModel = mockModel([{ toolCalls: [{ name: 'transfer_to_billing', args: { reason: 'refund request' } }] }])
    const triage = new Agent({ name: 'triage', instructions: 'Route the user.', model: triageModel, tools: { transfer_to_billing: handoff(billing) } })
    const runtime = new AgentRuntime()
    const stream = runtime.stream({ agent: triage, input: 'Please refund order 1042' })
    const events: AgentEvent[] = []
    for await (const event of stream) events.push(event)
    const output = await stream.result
    expect(output).toMatchObject({ finishReason: 'stop', text: 'Order 1042 is refunded.' })
    expect(events.find((event) => event.type === 'agent.handoff')).toMatchObject({ from: 'triage', to: 'billing' })
    expect(refunds).toEqual(['1042'])
    // The billing agent sees its own instructions and tools, and the whole history, handoff included.
    const request = billingModel.calls[0]!
    expect(request.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('You handle refunds.') })
    expect(request.tools?.map((tool) => tool.name)).toContain('refund')
    expect(JSON.stringify(request.messages)).toContain('Please refund order 1042')
    expect(JSON.stringify(request.messages)).toContain('transfer_to_billing')
  })

  it('a run suspended after a handoff resumes with the agent it was handed to, also in another runtime', async () => {
    const stores = memoryStores()
    const remove = defineTool({ name: 'remove', description: 'r', inputSchema: z.object({}), needsApproval: true, execute: () => 'removed' })
    const admin = {
      name: 'admin',
      instructions: 'Admin.',
      model: mockModel([{ toolCalls: [{ name: 'remove', args: {}, id: 'r1' }] }, { text: 'done by admin' }]),
      tools: { remove },
    }
    const front = { name: 'front', model: mockModel([{ toolCalls: [{ name: 'transfer_to_admin', args: {} }] }]), tools: { transfer_to_admin: handoff(admin) } }
    const first = new AgentRuntime(new Extensions().setStores(stores))
    const suspended = await first.run({ agent: front, input: 'remove it' })
    expect(suspended.finishReason).toBe('awaiting_approval')
    const second = new AgentRuntime(new Extensions().setStores(stores))
    await second.approve(suspended.runId, 'r1', true)
    const output = await second.resume(suspended.runId, { agent: front })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'done by admin' })
  })

  it("the target agent's policy applies from the handoff on: its approvals and its deny list", async () => {
    const refunds: string[] = []
    const refund = defineTool({
      name: 'refund',
      description: 'refunds',
      inputSchema: z.object({ order: z.string() }),
      execute: ({ order }) => refunds.push(order),
    })
    const billingWith = (policy: NonNullable<ConstructorParameters<typeof Agent>[0]['policy']>) =>
      new Agent({ name: 'billing', model: mockModel([{ toolCalls: [{ name: 'refund', args: { order: '1' } }] }, { text: 'done' }]), tools: { refund }, policy })
    const triage = (billing: Agent) =>
      new Agent({
        name: 'triage',
        model: mockModel([{ toolCalls: [{ name: 'transfer_to_billing', args: {} }] }]),
        tools: { transfer_to_billing: handoff(billing) },
      })
    const approving = await new AgentRuntime().run({ agent: triage(billingWith({ requireApproval: ['refund'] })), input: 'refund 1' })
    expect(approving.finishReason).toBe('awaiting_approval')
    const denying = await new AgentRuntime().run({ agent: triage(billingWith({ tools: { deny: ['refund'] } })), input: 'refund 1' })
    expect(denying.finishReason).toBe('stop')
    expect(JSON.stringify(denying.messages)).toContain('not allowed')
    expect(refunds).toEqual([])
  })
})
