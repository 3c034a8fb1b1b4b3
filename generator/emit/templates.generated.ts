// @ts-nocheck — precompiled template functions, untyped by nature.
// Generated from templates/*.hbs by scripts/bundle-templates.mjs (npm run build); do not edit.
// Handlebars 4.7.10, options {"noEscape":true,"strict":true}.
export const TEMPLATE_SPECS: Readonly<Record<string, object>> = {
  "channel.ts": {"0":function(container,depth0,helpers,partials,data) {
    var stack1, helper, lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "import { "
    + ((stack1 = (((helper = lookupProperty(helpers,"messageImports") || container.strict(depth0, "messageImports", {"start":{"line":11,"column":11},"end":{"line":11,"column":25}} ))),(typeof helper === "function" ? helper.call(depth0 != null ? depth0 : (container.nullContext || {}),{"name":"messageImports","hash":{},"data":data,"loc":{"start":{"line":11,"column":9},"end":{"line":11,"column":27}}}) : helper))) != null ? stack1 : "")
    + " } from \"../messages.js\";\n";
},"1":function(container,depth0,helpers,partials,data) {
    var stack1, helper, alias1=container.strict, alias2=depth0 != null ? depth0 : (container.nullContext || {}), alias3="function", lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "\n/** Values of the parameters in the address "
    + ((stack1 = (((helper = lookupProperty(helpers,"addressComment") || alias1(depth0, "addressComment", {"start":{"line":21,"column":47},"end":{"line":21,"column":61}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"addressComment","hash":{},"data":data,"loc":{"start":{"line":21,"column":44},"end":{"line":21,"column":64}}}) : helper))) != null ? stack1 : "")
    + ". */\nexport interface "
    + ((stack1 = (((helper = lookupProperty(helpers,"parametersType") || alias1(depth0, "parametersType", {"start":{"line":22,"column":19},"end":{"line":22,"column":33}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"parametersType","hash":{},"data":data,"loc":{"start":{"line":22,"column":17},"end":{"line":22,"column":35}}}) : helper))) != null ? stack1 : "")
    + " {\n"
    + ((stack1 = lookupProperty(helpers,"each").call(alias2,lookupProperty(depth0,"parameters"),{"name":"each","hash":{},"fn":container.program(2, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":23,"column":0},"end":{"line":25,"column":9}}})) != null ? stack1 : "")
    + "}\n";
},"2":function(container,depth0,helpers,partials,data) {
    var stack1, helper, alias1=container.strict, alias2=depth0 != null ? depth0 : (container.nullContext || {}), alias3="function", lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "  "
    + ((stack1 = (((helper = lookupProperty(helpers,"doc") || alias1(depth0, "doc", {"start":{"line":24,"column":5},"end":{"line":24,"column":8}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"doc","hash":{},"data":data,"loc":{"start":{"line":24,"column":2},"end":{"line":24,"column":11}}}) : helper))) != null ? stack1 : "")
    + "readonly "
    + ((stack1 = (((helper = lookupProperty(helpers,"key") || alias1(depth0, "key", {"start":{"line":24,"column":23},"end":{"line":24,"column":26}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"key","hash":{},"data":data,"loc":{"start":{"line":24,"column":20},"end":{"line":24,"column":29}}}) : helper))) != null ? stack1 : "")
    + ": "
    + ((stack1 = (((helper = lookupProperty(helpers,"type") || alias1(depth0, "type", {"start":{"line":24,"column":34},"end":{"line":24,"column":38}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"type","hash":{},"data":data,"loc":{"start":{"line":24,"column":31},"end":{"line":24,"column":41}}}) : helper))) != null ? stack1 : "")
    + ";\n";
},"3":function(container,depth0,helpers,partials,data) {
    var stack1, helper, lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "  parameterRules: "
    + ((stack1 = (((helper = lookupProperty(helpers,"parameterRules") || container.strict(depth0, "parameterRules", {"start":{"line":35,"column":21},"end":{"line":35,"column":35}} ))),(typeof helper === "function" ? helper.call(depth0 != null ? depth0 : (container.nullContext || {}),{"name":"parameterRules","hash":{},"data":data,"loc":{"start":{"line":35,"column":18},"end":{"line":35,"column":38}}}) : helper))) != null ? stack1 : "")
    + ",\n";
},"compiler":[8,">= 4.3.0"],"main":function(container,depth0,helpers,partials,data) {
    var stack1, helper, alias1=depth0 != null ? depth0 : (container.nullContext || {}), alias2=container.strict, alias3="function", lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return ((stack1 = container.invokePartial(lookupProperty(partials,"header"),depth0,{"name":"header","data":data,"helpers":helpers,"partials":partials,"decorators":container.decorators})) != null ? stack1 : "")
    + "import {\n  type BatchHandler,\n  defineChannel,\n  dispatch,\n  type DispatchCases,\n  type MessageHandler,\n  type MessageTypeOf,\n} from \"@keiyaku/runtime/codegen-v1\";\n"
    + ((stack1 = lookupProperty(helpers,"if").call(alias1,lookupProperty(depth0,"messageImports"),{"name":"if","hash":{},"fn":container.program(0, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":10,"column":0},"end":{"line":12,"column":7}}})) != null ? stack1 : "")
    + "\n/** Every message type that travels on "
    + ((stack1 = (((helper = lookupProperty(helpers,"idComment") || alias2(depth0, "idComment", {"start":{"line":14,"column":42},"end":{"line":14,"column":51}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"idComment","hash":{},"data":data,"loc":{"start":{"line":14,"column":39},"end":{"line":14,"column":54}}}) : helper))) != null ? stack1 : "")
    + ". */\nexport type "
    + ((stack1 = (((helper = lookupProperty(helpers,"messageUnion") || alias2(depth0, "messageUnion", {"start":{"line":15,"column":14},"end":{"line":15,"column":26}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"messageUnion","hash":{},"data":data,"loc":{"start":{"line":15,"column":12},"end":{"line":15,"column":28}}}) : helper))) != null ? stack1 : "")
    + " = "
    + ((stack1 = (((helper = lookupProperty(helpers,"unionType") || alias2(depth0, "unionType", {"start":{"line":15,"column":34},"end":{"line":15,"column":43}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"unionType","hash":{},"data":data,"loc":{"start":{"line":15,"column":31},"end":{"line":15,"column":46}}}) : helper))) != null ? stack1 : "")
    + ";\n\n/** Type names of "
    + ((stack1 = (((helper = lookupProperty(helpers,"messageUnion") || alias2(depth0, "messageUnion", {"start":{"line":17,"column":20},"end":{"line":17,"column":32}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"messageUnion","hash":{},"data":data,"loc":{"start":{"line":17,"column":18},"end":{"line":17,"column":34}}}) : helper))) != null ? stack1 : "")
    + ". */\nexport type "
    + ((stack1 = (((helper = lookupProperty(helpers,"messageTypeUnion") || alias2(depth0, "messageTypeUnion", {"start":{"line":18,"column":14},"end":{"line":18,"column":30}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"messageTypeUnion","hash":{},"data":data,"loc":{"start":{"line":18,"column":12},"end":{"line":18,"column":32}}}) : helper))) != null ? stack1 : "")
    + " = MessageTypeOf<"
    + ((stack1 = (((helper = lookupProperty(helpers,"messageUnion") || alias2(depth0, "messageUnion", {"start":{"line":18,"column":51},"end":{"line":18,"column":63}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"messageUnion","hash":{},"data":data,"loc":{"start":{"line":18,"column":49},"end":{"line":18,"column":65}}}) : helper))) != null ? stack1 : "")
    + ">;\n"
    + ((stack1 = lookupProperty(helpers,"if").call(alias1,lookupProperty(depth0,"hasParameters"),{"name":"if","hash":{},"fn":container.program(1, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":19,"column":0},"end":{"line":27,"column":7}}})) != null ? stack1 : "")
    + "\n"
    + ((stack1 = (((helper = lookupProperty(helpers,"doc") || alias2(depth0, "doc", {"start":{"line":29,"column":3},"end":{"line":29,"column":6}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"doc","hash":{},"data":data,"loc":{"start":{"line":29,"column":0},"end":{"line":29,"column":9}}}) : helper))) != null ? stack1 : "")
    + "export const "
    + ((stack1 = (((helper = lookupProperty(helpers,"identifier") || alias2(depth0, "identifier", {"start":{"line":29,"column":24},"end":{"line":29,"column":34}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"identifier","hash":{},"data":data,"loc":{"start":{"line":29,"column":22},"end":{"line":29,"column":36}}}) : helper))) != null ? stack1 : "")
    + " = defineChannel<"
    + ((stack1 = (((helper = lookupProperty(helpers,"messageUnion") || alias2(depth0, "messageUnion", {"start":{"line":29,"column":55},"end":{"line":29,"column":67}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"messageUnion","hash":{},"data":data,"loc":{"start":{"line":29,"column":53},"end":{"line":29,"column":69}}}) : helper))) != null ? stack1 : "")
    + ", "
    + ((stack1 = (((helper = lookupProperty(helpers,"addressType") || alias2(depth0, "addressType", {"start":{"line":29,"column":74},"end":{"line":29,"column":85}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"addressType","hash":{},"data":data,"loc":{"start":{"line":29,"column":71},"end":{"line":29,"column":88}}}) : helper))) != null ? stack1 : "")
    + ">({\n  id: "
    + ((stack1 = (((helper = lookupProperty(helpers,"idLiteral") || alias2(depth0, "idLiteral", {"start":{"line":30,"column":9},"end":{"line":30,"column":18}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"idLiteral","hash":{},"data":data,"loc":{"start":{"line":30,"column":6},"end":{"line":30,"column":21}}}) : helper))) != null ? stack1 : "")
    + ",\n  address: "
    + ((stack1 = (((helper = lookupProperty(helpers,"addressValue") || alias2(depth0, "addressValue", {"start":{"line":31,"column":14},"end":{"line":31,"column":26}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"addressValue","hash":{},"data":data,"loc":{"start":{"line":31,"column":11},"end":{"line":31,"column":29}}}) : helper))) != null ? stack1 : "")
    + ",\n  addressTemplate: "
    + ((stack1 = (((helper = lookupProperty(helpers,"addressLiteral") || alias2(depth0, "addressLiteral", {"start":{"line":32,"column":22},"end":{"line":32,"column":36}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"addressLiteral","hash":{},"data":data,"loc":{"start":{"line":32,"column":19},"end":{"line":32,"column":39}}}) : helper))) != null ? stack1 : "")
    + ",\n  parameters: ["
    + ((stack1 = (((helper = lookupProperty(helpers,"parameterNames") || alias2(depth0, "parameterNames", {"start":{"line":33,"column":18},"end":{"line":33,"column":32}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"parameterNames","hash":{},"data":data,"loc":{"start":{"line":33,"column":15},"end":{"line":33,"column":35}}}) : helper))) != null ? stack1 : "")
    + "],\n"
    + ((stack1 = lookupProperty(helpers,"if").call(alias1,lookupProperty(depth0,"parameterRules"),{"name":"if","hash":{},"fn":container.program(3, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":34,"column":0},"end":{"line":36,"column":7}}})) != null ? stack1 : "")
    + "  messages: ["
    + ((stack1 = (((helper = lookupProperty(helpers,"messageList") || alias2(depth0, "messageList", {"start":{"line":37,"column":15},"end":{"line":37,"column":26}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"messageList","hash":{},"data":data,"loc":{"start":{"line":37,"column":13},"end":{"line":37,"column":28}}}) : helper))) != null ? stack1 : "")
    + "],\n  bindings: "
    + ((stack1 = (((helper = lookupProperty(helpers,"bindings") || alias2(depth0, "bindings", {"start":{"line":38,"column":15},"end":{"line":38,"column":23}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"bindings","hash":{},"data":data,"loc":{"start":{"line":38,"column":12},"end":{"line":38,"column":26}}}) : helper))) != null ? stack1 : "")
    + ",\n});\n\n/**\n * Implement this to consume "
    + ((stack1 = (((helper = lookupProperty(helpers,"idComment") || alias2(depth0, "idComment", {"start":{"line":42,"column":32},"end":{"line":42,"column":41}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"idComment","hash":{},"data":data,"loc":{"start":{"line":42,"column":29},"end":{"line":42,"column":44}}}) : helper))) != null ? stack1 : "")
    + ". `groupId` names the consumer group\n * (one per capability, named like `<service>.<capability>`); handlers must be idempotent.\n */\nexport interface "
    + ((stack1 = (((helper = lookupProperty(helpers,"handlerType") || alias2(depth0, "handlerType", {"start":{"line":45,"column":19},"end":{"line":45,"column":30}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"handlerType","hash":{},"data":data,"loc":{"start":{"line":45,"column":17},"end":{"line":45,"column":32}}}) : helper))) != null ? stack1 : "")
    + " extends MessageHandler<"
    + ((stack1 = (((helper = lookupProperty(helpers,"messageUnion") || alias2(depth0, "messageUnion", {"start":{"line":45,"column":58},"end":{"line":45,"column":70}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"messageUnion","hash":{},"data":data,"loc":{"start":{"line":45,"column":56},"end":{"line":45,"column":72}}}) : helper))) != null ? stack1 : "")
    + "> {}\n\n/**\n * Implement this to consume "
    + ((stack1 = (((helper = lookupProperty(helpers,"idComment") || alias2(depth0, "idComment", {"start":{"line":48,"column":32},"end":{"line":48,"column":41}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"idComment","hash":{},"data":data,"loc":{"start":{"line":48,"column":29},"end":{"line":48,"column":44}}}) : helper))) != null ? stack1 : "")
    + " in batches (`messaging.subscribeBatch`): up to\n * `batch.maxSize` messages of one partition per call, in order, acknowledged together.\n */\nexport interface "
    + ((stack1 = (((helper = lookupProperty(helpers,"batchHandlerType") || alias2(depth0, "batchHandlerType", {"start":{"line":51,"column":19},"end":{"line":51,"column":35}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"batchHandlerType","hash":{},"data":data,"loc":{"start":{"line":51,"column":17},"end":{"line":51,"column":37}}}) : helper))) != null ? stack1 : "")
    + " extends BatchHandler<"
    + ((stack1 = (((helper = lookupProperty(helpers,"messageUnion") || alias2(depth0, "messageUnion", {"start":{"line":51,"column":61},"end":{"line":51,"column":73}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"messageUnion","hash":{},"data":data,"loc":{"start":{"line":51,"column":59},"end":{"line":51,"column":75}}}) : helper))) != null ? stack1 : "")
    + "> {}\n\n/** One function per message type of "
    + ((stack1 = (((helper = lookupProperty(helpers,"messageUnion") || alias2(depth0, "messageUnion", {"start":{"line":53,"column":39},"end":{"line":53,"column":51}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"messageUnion","hash":{},"data":data,"loc":{"start":{"line":53,"column":37},"end":{"line":53,"column":53}}}) : helper))) != null ? stack1 : "")
    + "; the compiler insists on all of them. */\nexport type "
    + ((stack1 = (((helper = lookupProperty(helpers,"casesType") || alias2(depth0, "casesType", {"start":{"line":54,"column":14},"end":{"line":54,"column":23}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"casesType","hash":{},"data":data,"loc":{"start":{"line":54,"column":12},"end":{"line":54,"column":25}}}) : helper))) != null ? stack1 : "")
    + "<R> = DispatchCases<"
    + ((stack1 = (((helper = lookupProperty(helpers,"messageUnion") || alias2(depth0, "messageUnion", {"start":{"line":54,"column":47},"end":{"line":54,"column":59}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"messageUnion","hash":{},"data":data,"loc":{"start":{"line":54,"column":45},"end":{"line":54,"column":61}}}) : helper))) != null ? stack1 : "")
    + ", R>;\n\n/** Calls the case of `message`'s type. */\nexport function "
    + ((stack1 = (((helper = lookupProperty(helpers,"dispatchName") || alias2(depth0, "dispatchName", {"start":{"line":57,"column":18},"end":{"line":57,"column":30}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"dispatchName","hash":{},"data":data,"loc":{"start":{"line":57,"column":16},"end":{"line":57,"column":32}}}) : helper))) != null ? stack1 : "")
    + "<R>(message: "
    + ((stack1 = (((helper = lookupProperty(helpers,"messageUnion") || alias2(depth0, "messageUnion", {"start":{"line":57,"column":47},"end":{"line":57,"column":59}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"messageUnion","hash":{},"data":data,"loc":{"start":{"line":57,"column":45},"end":{"line":57,"column":61}}}) : helper))) != null ? stack1 : "")
    + ", cases: "
    + ((stack1 = (((helper = lookupProperty(helpers,"casesType") || alias2(depth0, "casesType", {"start":{"line":57,"column":72},"end":{"line":57,"column":81}} ))),(typeof helper === alias3 ? helper.call(alias1,{"name":"casesType","hash":{},"data":data,"loc":{"start":{"line":57,"column":70},"end":{"line":57,"column":83}}}) : helper))) != null ? stack1 : "")
    + "<R>): R {\n  return dispatch(message, cases);\n}\n";
},"usePartial":true,"useData":true},
  "header": {"compiler":[8,">= 4.3.0"],"main":function(container,depth0,helpers,partials,data) {
    var stack1, helper, lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return ((stack1 = (((helper = lookupProperty(helpers,"header") || container.strict(depth0, "header", {"start":{"line":1,"column":3},"end":{"line":1,"column":9}} ))),(typeof helper === "function" ? helper.call(depth0 != null ? depth0 : (container.nullContext || {}),{"name":"header","hash":{},"data":data,"loc":{"start":{"line":1,"column":0},"end":{"line":1,"column":12}}}) : helper))) != null ? stack1 : "")
    + "\n";
},"useData":true},
  "iggy.ts": {"0":function(container,depth0,helpers,partials,data) {
    var stack1, lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "/*\n * Channels left out of this file:\n"
    + ((stack1 = lookupProperty(helpers,"each").call(depth0 != null ? depth0 : (container.nullContext || {}),lookupProperty(depth0,"leftOut"),{"name":"each","hash":{},"fn":container.program(1, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":5,"column":0},"end":{"line":7,"column":9}}})) != null ? stack1 : "")
    + " */\n";
},"1":function(container,depth0,helpers,partials,data) {
    var stack1;

  return " * - "
    + ((stack1 = container.lambda(depth0, depth0)) != null ? stack1 : "")
    + "\n";
},"2":function(container,depth0,helpers,partials,data) {
    return "import { iggyChannel } from \"@keiyaku/iggy/codegen-v1\";\n";
},"3":function(container,depth0,helpers,partials,data) {
    var stack1, helper, alias1=container.strict, alias2=depth0 != null ? depth0 : (container.nullContext || {}), alias3="function", lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "import { "
    + ((stack1 = (((helper = lookupProperty(helpers,"identifier") || alias1(depth0, "identifier", {"start":{"line":14,"column":11},"end":{"line":14,"column":21}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"identifier","hash":{},"data":data,"loc":{"start":{"line":14,"column":9},"end":{"line":14,"column":23}}}) : helper))) != null ? stack1 : "")
    + ", type "
    + ((stack1 = (((helper = lookupProperty(helpers,"messageUnion") || alias1(depth0, "messageUnion", {"start":{"line":14,"column":32},"end":{"line":14,"column":44}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"messageUnion","hash":{},"data":data,"loc":{"start":{"line":14,"column":30},"end":{"line":14,"column":46}}}) : helper))) != null ? stack1 : "")
    + " } from \"./channels/"
    + ((stack1 = (((helper = lookupProperty(helpers,"file") || alias1(depth0, "file", {"start":{"line":14,"column":68},"end":{"line":14,"column":72}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"file","hash":{},"data":data,"loc":{"start":{"line":14,"column":66},"end":{"line":14,"column":74}}}) : helper))) != null ? stack1 : "")
    + ".js\";\n";
},"4":function(container,depth0,helpers,partials,data) {
    var stack1, helper, alias1=container.strict, alias2=depth0 != null ? depth0 : (container.nullContext || {}), alias3="function", lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "\n/**\n * Channel "
    + ((stack1 = (((helper = lookupProperty(helpers,"idComment") || alias1(depth0, "idComment", {"start":{"line":19,"column":14},"end":{"line":19,"column":23}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"idComment","hash":{},"data":data,"loc":{"start":{"line":19,"column":11},"end":{"line":19,"column":26}}}) : helper))) != null ? stack1 : "")
    + " on Apache Iggy: stream "
    + ((stack1 = (((helper = lookupProperty(helpers,"streamComment") || alias1(depth0, "streamComment", {"start":{"line":19,"column":53},"end":{"line":19,"column":66}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"streamComment","hash":{},"data":data,"loc":{"start":{"line":19,"column":50},"end":{"line":19,"column":69}}}) : helper))) != null ? stack1 : "")
    + ", topic "
    + ((stack1 = (((helper = lookupProperty(helpers,"topicComment") || alias1(depth0, "topicComment", {"start":{"line":19,"column":80},"end":{"line":19,"column":92}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"topicComment","hash":{},"data":data,"loc":{"start":{"line":19,"column":77},"end":{"line":19,"column":95}}}) : helper))) != null ? stack1 : "")
    + ".\n * `"
    + ((stack1 = (((helper = lookupProperty(helpers,"identifier") || alias1(depth0, "identifier", {"start":{"line":20,"column":6},"end":{"line":20,"column":16}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"identifier","hash":{},"data":data,"loc":{"start":{"line":20,"column":4},"end":{"line":20,"column":18}}}) : helper))) != null ? stack1 : "")
    + "Iggy.publisher(client)` / `.consumer(client, consumer)` build the high-level SDK's\n * publisher and consumer; `.serde` is the typed serializer/deserializer pair.\n */\nexport const "
    + ((stack1 = (((helper = lookupProperty(helpers,"identifier") || alias1(depth0, "identifier", {"start":{"line":23,"column":15},"end":{"line":23,"column":25}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"identifier","hash":{},"data":data,"loc":{"start":{"line":23,"column":13},"end":{"line":23,"column":27}}}) : helper))) != null ? stack1 : "")
    + "Iggy = iggyChannel<"
    + ((stack1 = (((helper = lookupProperty(helpers,"messageUnion") || alias1(depth0, "messageUnion", {"start":{"line":23,"column":48},"end":{"line":23,"column":60}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"messageUnion","hash":{},"data":data,"loc":{"start":{"line":23,"column":46},"end":{"line":23,"column":62}}}) : helper))) != null ? stack1 : "")
    + ">("
    + ((stack1 = (((helper = lookupProperty(helpers,"identifier") || alias1(depth0, "identifier", {"start":{"line":23,"column":66},"end":{"line":23,"column":76}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"identifier","hash":{},"data":data,"loc":{"start":{"line":23,"column":64},"end":{"line":23,"column":78}}}) : helper))) != null ? stack1 : "")
    + ", { stream: "
    + ((stack1 = (((helper = lookupProperty(helpers,"streamLiteral") || alias1(depth0, "streamLiteral", {"start":{"line":23,"column":93},"end":{"line":23,"column":106}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"streamLiteral","hash":{},"data":data,"loc":{"start":{"line":23,"column":90},"end":{"line":23,"column":109}}}) : helper))) != null ? stack1 : "")
    + ", topic: "
    + ((stack1 = (((helper = lookupProperty(helpers,"topicLiteral") || alias1(depth0, "topicLiteral", {"start":{"line":23,"column":121},"end":{"line":23,"column":133}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"topicLiteral","hash":{},"data":data,"loc":{"start":{"line":23,"column":118},"end":{"line":23,"column":136}}}) : helper))) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"if").call(alias2,lookupProperty(depth0,"partitions"),{"name":"if","hash":{},"fn":container.program(5, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":23,"column":136},"end":{"line":23,"column":189}}})) != null ? stack1 : "")
    + " });\n";
},"5":function(container,depth0,helpers,partials,data) {
    var stack1, helper, lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return ", partitions: "
    + ((stack1 = (((helper = lookupProperty(helpers,"partitions") || container.strict(depth0, "partitions", {"start":{"line":23,"column":170},"end":{"line":23,"column":180}} ))),(typeof helper === "function" ? helper.call(depth0 != null ? depth0 : (container.nullContext || {}),{"name":"partitions","hash":{},"data":data,"loc":{"start":{"line":23,"column":168},"end":{"line":23,"column":182}}}) : helper))) != null ? stack1 : "");
},"6":function(container,depth0,helpers,partials,data) {
    return "export {};\n";
},"compiler":[8,">= 4.3.0"],"main":function(container,depth0,helpers,partials,data) {
    var stack1, alias1=depth0 != null ? depth0 : (container.nullContext || {}), lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return ((stack1 = container.invokePartial(lookupProperty(partials,"header"),depth0,{"name":"header","data":data,"helpers":helpers,"partials":partials,"decorators":container.decorators})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"if").call(alias1,lookupProperty(depth0,"leftOut"),{"name":"if","hash":{},"fn":container.program(0, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":2,"column":0},"end":{"line":9,"column":7}}})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"if").call(alias1,lookupProperty(depth0,"channels"),{"name":"if","hash":{},"fn":container.program(2, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":10,"column":0},"end":{"line":12,"column":7}}})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"each").call(alias1,lookupProperty(depth0,"channels"),{"name":"each","hash":{},"fn":container.program(3, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":13,"column":0},"end":{"line":15,"column":9}}})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"each").call(alias1,lookupProperty(depth0,"channels"),{"name":"each","hash":{},"fn":container.program(4, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":16,"column":0},"end":{"line":24,"column":9}}})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"unless").call(alias1,lookupProperty(depth0,"channels"),{"name":"unless","hash":{},"fn":container.program(6, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":25,"column":0},"end":{"line":27,"column":11}}})) != null ? stack1 : "");
},"usePartial":true,"useData":true},
  "index.ts": {"0":function(container,depth0,helpers,partials,data) {
    return "export * from \"./types.js\";\n";
},"1":function(container,depth0,helpers,partials,data) {
    return "export type * from \"./types.js\";\n";
},"2":function(container,depth0,helpers,partials,data) {
    var stack1, helper, lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "export * from \"./channels/"
    + ((stack1 = (((helper = lookupProperty(helpers,"file") || container.strict(depth0, "file", {"start":{"line":9,"column":28},"end":{"line":9,"column":32}} ))),(typeof helper === "function" ? helper.call(depth0 != null ? depth0 : (container.nullContext || {}),{"name":"file","hash":{},"data":data,"loc":{"start":{"line":9,"column":26},"end":{"line":9,"column":34}}}) : helper))) != null ? stack1 : "")
    + ".js\";\n";
},"3":function(container,depth0,helpers,partials,data) {
    return "export * from \"./request-reply.js\";\n";
},"4":function(container,depth0,helpers,partials,data) {
    var stack1, helper, alias1=container.strict, alias2=depth0 != null ? depth0 : (container.nullContext || {}), alias3="function", lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "import { "
    + ((stack1 = (((helper = lookupProperty(helpers,"identifier") || alias1(depth0, "identifier", {"start":{"line":15,"column":11},"end":{"line":15,"column":21}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"identifier","hash":{},"data":data,"loc":{"start":{"line":15,"column":9},"end":{"line":15,"column":23}}}) : helper))) != null ? stack1 : "")
    + " } from \"./channels/"
    + ((stack1 = (((helper = lookupProperty(helpers,"file") || alias1(depth0, "file", {"start":{"line":15,"column":45},"end":{"line":15,"column":49}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"file","hash":{},"data":data,"loc":{"start":{"line":15,"column":43},"end":{"line":15,"column":51}}}) : helper))) != null ? stack1 : "")
    + ".js\";\n";
},"compiler":[8,">= 4.3.0"],"main":function(container,depth0,helpers,partials,data) {
    var stack1, helper, alias1=depth0 != null ? depth0 : (container.nullContext || {}), lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return ((stack1 = container.invokePartial(lookupProperty(partials,"header"),depth0,{"name":"header","data":data,"helpers":helpers,"partials":partials,"decorators":container.decorators})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"if").call(alias1,lookupProperty(depth0,"typesWithValues"),{"name":"if","hash":{},"fn":container.program(0, data, 0),"inverse":container.program(1, data, 0),"data":data,"loc":{"start":{"line":2,"column":0},"end":{"line":6,"column":7}}})) != null ? stack1 : "")
    + "export * from \"./messages.js\";\n"
    + ((stack1 = lookupProperty(helpers,"each").call(alias1,lookupProperty(depth0,"channels"),{"name":"each","hash":{},"fn":container.program(2, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":8,"column":0},"end":{"line":10,"column":9}}})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"if").call(alias1,lookupProperty(depth0,"requestReply"),{"name":"if","hash":{},"fn":container.program(3, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":11,"column":0},"end":{"line":13,"column":7}}})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"each").call(alias1,lookupProperty(depth0,"channels"),{"name":"each","hash":{},"fn":container.program(4, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":14,"column":0},"end":{"line":16,"column":9}}})) != null ? stack1 : "")
    + "\n/** Every channel of the contract, in document order. */\nexport const channels = ["
    + ((stack1 = (((helper = lookupProperty(helpers,"channelList") || container.strict(depth0, "channelList", {"start":{"line":19,"column":27},"end":{"line":19,"column":38}} ))),(typeof helper === "function" ? helper.call(alias1,{"name":"channelList","hash":{},"data":data,"loc":{"start":{"line":19,"column":25},"end":{"line":19,"column":40}}}) : helper))) != null ? stack1 : "")
    + "] as const;\n";
},"usePartial":true,"useData":true},
  "messages.ts": {"0":function(container,depth0,helpers,partials,data) {
    return "import { avroCodec } from \"@keiyaku/avro\";\n";
},"1":function(container,depth0,helpers,partials,data) {
    return "import { protobufCodec } from \"@keiyaku/protobuf\";\n";
},"2":function(container,depth0,helpers,partials,data) {
    return "type Boxed, ";
},"3":function(container,depth0,helpers,partials,data) {
    var stack1, helper, lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "import type { "
    + ((stack1 = (((helper = lookupProperty(helpers,"typeImports") || container.strict(depth0, "typeImports", {"start":{"line":10,"column":16},"end":{"line":10,"column":27}} ))),(typeof helper === "function" ? helper.call(depth0 != null ? depth0 : (container.nullContext || {}),{"name":"typeImports","hash":{},"data":data,"loc":{"start":{"line":10,"column":14},"end":{"line":10,"column":29}}}) : helper))) != null ? stack1 : "")
    + " } from \"./types.js\";\n";
},"4":function(container,depth0,helpers,partials,data) {
    var stack1, helper, lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "import { "
    + ((stack1 = (((helper = lookupProperty(helpers,"validatorImports") || container.strict(depth0, "validatorImports", {"start":{"line":13,"column":11},"end":{"line":13,"column":27}} ))),(typeof helper === "function" ? helper.call(depth0 != null ? depth0 : (container.nullContext || {}),{"name":"validatorImports","hash":{},"data":data,"loc":{"start":{"line":13,"column":9},"end":{"line":13,"column":29}}}) : helper))) != null ? stack1 : "")
    + " } from \"./validators.js\";\n";
},"5":function(container,depth0,helpers,partials,data) {
    var stack1, helper, alias1=container.strict, alias2=depth0 != null ? depth0 : (container.nullContext || {}), alias3="function", lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "\n"
    + ((stack1 = (((helper = lookupProperty(helpers,"doc") || alias1(depth0, "doc", {"start":{"line":17,"column":3},"end":{"line":17,"column":6}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"doc","hash":{},"data":data,"loc":{"start":{"line":17,"column":0},"end":{"line":17,"column":9}}}) : helper))) != null ? stack1 : "")
    + "export type "
    + ((stack1 = (((helper = lookupProperty(helpers,"identifier") || alias1(depth0, "identifier", {"start":{"line":17,"column":23},"end":{"line":17,"column":33}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"identifier","hash":{},"data":data,"loc":{"start":{"line":17,"column":21},"end":{"line":17,"column":35}}}) : helper))) != null ? stack1 : "")
    + " = ContractMessage<"
    + ((stack1 = (((helper = lookupProperty(helpers,"typeLiteral") || alias1(depth0, "typeLiteral", {"start":{"line":17,"column":57},"end":{"line":17,"column":68}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"typeLiteral","hash":{},"data":data,"loc":{"start":{"line":17,"column":54},"end":{"line":17,"column":71}}}) : helper))) != null ? stack1 : "")
    + ", "
    + ((stack1 = lookupProperty(helpers,"if").call(alias2,lookupProperty(depth0,"boxed"),{"name":"if","hash":{},"fn":container.program(6, data, 0),"inverse":container.program(7, data, 0),"data":data,"loc":{"start":{"line":17,"column":73},"end":{"line":17,"column":138}}})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"if").call(alias2,lookupProperty(depth0,"headersType"),{"name":"if","hash":{},"fn":container.program(8, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":17,"column":138},"end":{"line":17,"column":181}}})) != null ? stack1 : "")
    + ">;\n"
    + ((stack1 = (((helper = lookupProperty(helpers,"doc") || alias1(depth0, "doc", {"start":{"line":18,"column":3},"end":{"line":18,"column":6}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"doc","hash":{},"data":data,"loc":{"start":{"line":18,"column":0},"end":{"line":18,"column":9}}}) : helper))) != null ? stack1 : "")
    + "export const "
    + ((stack1 = (((helper = lookupProperty(helpers,"identifier") || alias1(depth0, "identifier", {"start":{"line":18,"column":24},"end":{"line":18,"column":34}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"identifier","hash":{},"data":data,"loc":{"start":{"line":18,"column":22},"end":{"line":18,"column":36}}}) : helper))) != null ? stack1 : "")
    + ": MessageDescriptor<"
    + ((stack1 = (((helper = lookupProperty(helpers,"typeLiteral") || alias1(depth0, "typeLiteral", {"start":{"line":18,"column":59},"end":{"line":18,"column":70}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"typeLiteral","hash":{},"data":data,"loc":{"start":{"line":18,"column":56},"end":{"line":18,"column":73}}}) : helper))) != null ? stack1 : "")
    + ", "
    + ((stack1 = (((helper = lookupProperty(helpers,"inputType") || alias1(depth0, "inputType", {"start":{"line":18,"column":77},"end":{"line":18,"column":86}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"inputType","hash":{},"data":data,"loc":{"start":{"line":18,"column":75},"end":{"line":18,"column":88}}}) : helper))) != null ? stack1 : "")
    + ", "
    + ((stack1 = (((helper = lookupProperty(helpers,"identifier") || alias1(depth0, "identifier", {"start":{"line":18,"column":92},"end":{"line":18,"column":102}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"identifier","hash":{},"data":data,"loc":{"start":{"line":18,"column":90},"end":{"line":18,"column":104}}}) : helper))) != null ? stack1 : "")
    + "> = defineMessage({\n  type: "
    + ((stack1 = (((helper = lookupProperty(helpers,"typeLiteral") || alias1(depth0, "typeLiteral", {"start":{"line":19,"column":11},"end":{"line":19,"column":22}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"typeLiteral","hash":{},"data":data,"loc":{"start":{"line":19,"column":8},"end":{"line":19,"column":25}}}) : helper))) != null ? stack1 : "")
    + ",\n  id: "
    + ((stack1 = (((helper = lookupProperty(helpers,"idLiteral") || alias1(depth0, "idLiteral", {"start":{"line":20,"column":9},"end":{"line":20,"column":18}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"idLiteral","hash":{},"data":data,"loc":{"start":{"line":20,"column":6},"end":{"line":20,"column":21}}}) : helper))) != null ? stack1 : "")
    + ",\n  contentType: "
    + ((stack1 = (((helper = lookupProperty(helpers,"contentTypeLiteral") || alias1(depth0, "contentTypeLiteral", {"start":{"line":21,"column":18},"end":{"line":21,"column":36}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"contentTypeLiteral","hash":{},"data":data,"loc":{"start":{"line":21,"column":15},"end":{"line":21,"column":39}}}) : helper))) != null ? stack1 : "")
    + ",\n  schemaHash: "
    + ((stack1 = (((helper = lookupProperty(helpers,"hashLiteral") || alias1(depth0, "hashLiteral", {"start":{"line":22,"column":17},"end":{"line":22,"column":28}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"hashLiteral","hash":{},"data":data,"loc":{"start":{"line":22,"column":14},"end":{"line":22,"column":31}}}) : helper))) != null ? stack1 : "")
    + ",\n"
    + ((stack1 = lookupProperty(helpers,"if").call(alias2,lookupProperty(depth0,"codec"),{"name":"if","hash":{},"fn":container.program(9, data, 0),"inverse":container.program(10, data, 0),"data":data,"loc":{"start":{"line":23,"column":0},"end":{"line":27,"column":7}}})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"if").call(alias2,lookupProperty(depth0,"headersType"),{"name":"if","hash":{},"fn":container.program(11, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":28,"column":0},"end":{"line":30,"column":7}}})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"if").call(alias2,lookupProperty(depth0,"boxed"),{"name":"if","hash":{},"fn":container.program(12, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":31,"column":0},"end":{"line":33,"column":7}}})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"if").call(alias2,lookupProperty(depth0,"keyLiteral"),{"name":"if","hash":{},"fn":container.program(13, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":34,"column":0},"end":{"line":36,"column":7}}})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"if").call(alias2,lookupProperty(depth0,"registryLiteral"),{"name":"if","hash":{},"fn":container.program(14, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":37,"column":0},"end":{"line":39,"column":7}}})) != null ? stack1 : "")
    + "});\n";
},"6":function(container,depth0,helpers,partials,data) {
    var stack1, helper, lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "Boxed<"
    + ((stack1 = (((helper = lookupProperty(helpers,"payloadType") || container.strict(depth0, "payloadType", {"start":{"line":17,"column":94},"end":{"line":17,"column":105}} ))),(typeof helper === "function" ? helper.call(depth0 != null ? depth0 : (container.nullContext || {}),{"name":"payloadType","hash":{},"data":data,"loc":{"start":{"line":17,"column":92},"end":{"line":17,"column":107}}}) : helper))) != null ? stack1 : "")
    + ">";
},"7":function(container,depth0,helpers,partials,data) {
    var stack1, helper, lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return ((stack1 = (((helper = lookupProperty(helpers,"payloadType") || container.strict(depth0, "payloadType", {"start":{"line":17,"column":118},"end":{"line":17,"column":129}} ))),(typeof helper === "function" ? helper.call(depth0 != null ? depth0 : (container.nullContext || {}),{"name":"payloadType","hash":{},"data":data,"loc":{"start":{"line":17,"column":116},"end":{"line":17,"column":131}}}) : helper))) != null ? stack1 : "");
},"8":function(container,depth0,helpers,partials,data) {
    var stack1, helper, lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return ", "
    + ((stack1 = (((helper = lookupProperty(helpers,"headersType") || container.strict(depth0, "headersType", {"start":{"line":17,"column":161},"end":{"line":17,"column":172}} ))),(typeof helper === "function" ? helper.call(depth0 != null ? depth0 : (container.nullContext || {}),{"name":"headersType","hash":{},"data":data,"loc":{"start":{"line":17,"column":159},"end":{"line":17,"column":174}}}) : helper))) != null ? stack1 : "");
},"9":function(container,depth0,helpers,partials,data) {
    var stack1, helper, lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "  codec: "
    + ((stack1 = (((helper = lookupProperty(helpers,"codec") || container.strict(depth0, "codec", {"start":{"line":24,"column":12},"end":{"line":24,"column":17}} ))),(typeof helper === "function" ? helper.call(depth0 != null ? depth0 : (container.nullContext || {}),{"name":"codec","hash":{},"data":data,"loc":{"start":{"line":24,"column":9},"end":{"line":24,"column":20}}}) : helper))) != null ? stack1 : "")
    + ",\n";
},"10":function(container,depth0,helpers,partials,data) {
    var stack1, helper, lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "  validate: "
    + ((stack1 = (((helper = lookupProperty(helpers,"validator") || container.strict(depth0, "validator", {"start":{"line":26,"column":14},"end":{"line":26,"column":23}} ))),(typeof helper === "function" ? helper.call(depth0 != null ? depth0 : (container.nullContext || {}),{"name":"validator","hash":{},"data":data,"loc":{"start":{"line":26,"column":12},"end":{"line":26,"column":25}}}) : helper))) != null ? stack1 : "")
    + ",\n";
},"11":function(container,depth0,helpers,partials,data) {
    var stack1, helper, alias1=container.strict, alias2=depth0 != null ? depth0 : (container.nullContext || {}), alias3="function", lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "  headers: { names: ["
    + ((stack1 = (((helper = lookupProperty(helpers,"headerNames") || alias1(depth0, "headerNames", {"start":{"line":29,"column":24},"end":{"line":29,"column":35}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"headerNames","hash":{},"data":data,"loc":{"start":{"line":29,"column":21},"end":{"line":29,"column":38}}}) : helper))) != null ? stack1 : "")
    + "], json: ["
    + ((stack1 = (((helper = lookupProperty(helpers,"headerJson") || alias1(depth0, "headerJson", {"start":{"line":29,"column":51},"end":{"line":29,"column":61}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"headerJson","hash":{},"data":data,"loc":{"start":{"line":29,"column":48},"end":{"line":29,"column":64}}}) : helper))) != null ? stack1 : "")
    + "], validate: "
    + ((stack1 = (((helper = lookupProperty(helpers,"headersValidator") || alias1(depth0, "headersValidator", {"start":{"line":29,"column":79},"end":{"line":29,"column":95}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"headersValidator","hash":{},"data":data,"loc":{"start":{"line":29,"column":77},"end":{"line":29,"column":97}}}) : helper))) != null ? stack1 : "")
    + " },\n";
},"12":function(container,depth0,helpers,partials,data) {
    return "  boxed: true,\n";
},"13":function(container,depth0,helpers,partials,data) {
    var stack1, helper, lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "  keyProperty: "
    + ((stack1 = (((helper = lookupProperty(helpers,"keyLiteral") || container.strict(depth0, "keyLiteral", {"start":{"line":35,"column":18},"end":{"line":35,"column":28}} ))),(typeof helper === "function" ? helper.call(depth0 != null ? depth0 : (container.nullContext || {}),{"name":"keyLiteral","hash":{},"data":data,"loc":{"start":{"line":35,"column":15},"end":{"line":35,"column":31}}}) : helper))) != null ? stack1 : "")
    + ",\n";
},"14":function(container,depth0,helpers,partials,data) {
    var stack1, helper, lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "  registry: "
    + ((stack1 = (((helper = lookupProperty(helpers,"registryLiteral") || container.strict(depth0, "registryLiteral", {"start":{"line":38,"column":15},"end":{"line":38,"column":30}} ))),(typeof helper === "function" ? helper.call(depth0 != null ? depth0 : (container.nullContext || {}),{"name":"registryLiteral","hash":{},"data":data,"loc":{"start":{"line":38,"column":12},"end":{"line":38,"column":33}}}) : helper))) != null ? stack1 : "")
    + ",\n";
},"15":function(container,depth0,helpers,partials,data) {
    return "export {};\n";
},"compiler":[8,">= 4.3.0"],"main":function(container,depth0,helpers,partials,data) {
    var stack1, alias1=depth0 != null ? depth0 : (container.nullContext || {}), lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return ((stack1 = container.invokePartial(lookupProperty(partials,"header"),depth0,{"name":"header","data":data,"helpers":helpers,"partials":partials,"decorators":container.decorators})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"if").call(alias1,lookupProperty(depth0,"anyAvro"),{"name":"if","hash":{},"fn":container.program(0, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":2,"column":0},"end":{"line":4,"column":7}}})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"if").call(alias1,lookupProperty(depth0,"anyProtobuf"),{"name":"if","hash":{},"fn":container.program(1, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":5,"column":0},"end":{"line":7,"column":7}}})) != null ? stack1 : "")
    + "import { "
    + ((stack1 = lookupProperty(helpers,"if").call(alias1,lookupProperty(depth0,"anyBoxed"),{"name":"if","hash":{},"fn":container.program(2, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":8,"column":9},"end":{"line":8,"column":44}}})) != null ? stack1 : "")
    + "type ContractMessage, defineMessage, type MessageDescriptor } from \"@keiyaku/runtime/codegen-v1\";\n"
    + ((stack1 = lookupProperty(helpers,"if").call(alias1,lookupProperty(depth0,"typeImports"),{"name":"if","hash":{},"fn":container.program(3, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":9,"column":0},"end":{"line":11,"column":7}}})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"if").call(alias1,lookupProperty(depth0,"validatorImports"),{"name":"if","hash":{},"fn":container.program(4, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":12,"column":0},"end":{"line":14,"column":7}}})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"each").call(alias1,lookupProperty(depth0,"messages"),{"name":"each","hash":{},"fn":container.program(5, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":15,"column":0},"end":{"line":41,"column":9}}})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"unless").call(alias1,lookupProperty(depth0,"messages"),{"name":"unless","hash":{},"fn":container.program(15, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":42,"column":0},"end":{"line":44,"column":11}}})) != null ? stack1 : "");
},"usePartial":true,"useData":true},
  "request-reply.ts": {"0":function(container,depth0,helpers,partials,data) {
    var stack1, helper, alias1=container.strict, alias2=depth0 != null ? depth0 : (container.nullContext || {}), alias3="function", lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "import { "
    + ((stack1 = (((helper = lookupProperty(helpers,"identifier") || alias1(depth0, "identifier", {"start":{"line":4,"column":11},"end":{"line":4,"column":21}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"identifier","hash":{},"data":data,"loc":{"start":{"line":4,"column":9},"end":{"line":4,"column":23}}}) : helper))) != null ? stack1 : "")
    + " } from \"./channels/"
    + ((stack1 = (((helper = lookupProperty(helpers,"file") || alias1(depth0, "file", {"start":{"line":4,"column":45},"end":{"line":4,"column":49}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"file","hash":{},"data":data,"loc":{"start":{"line":4,"column":43},"end":{"line":4,"column":51}}}) : helper))) != null ? stack1 : "")
    + ".js\";\n";
},"1":function(container,depth0,helpers,partials,data) {
    var stack1, helper, alias1=container.strict, alias2=depth0 != null ? depth0 : (container.nullContext || {}), alias3="function", lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return "\n/** What a request of "
    + ((stack1 = (((helper = lookupProperty(helpers,"idComment") || alias1(depth0, "idComment", {"start":{"line":9,"column":25},"end":{"line":9,"column":34}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"idComment","hash":{},"data":data,"loc":{"start":{"line":9,"column":22},"end":{"line":9,"column":37}}}) : helper))) != null ? stack1 : "")
    + " may be. */\nexport type "
    + ((stack1 = (((helper = lookupProperty(helpers,"requestType") || alias1(depth0, "requestType", {"start":{"line":10,"column":14},"end":{"line":10,"column":25}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"requestType","hash":{},"data":data,"loc":{"start":{"line":10,"column":12},"end":{"line":10,"column":27}}}) : helper))) != null ? stack1 : "")
    + " = "
    + ((stack1 = (((helper = lookupProperty(helpers,"requestUnion") || alias1(depth0, "requestUnion", {"start":{"line":10,"column":33},"end":{"line":10,"column":45}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"requestUnion","hash":{},"data":data,"loc":{"start":{"line":10,"column":30},"end":{"line":10,"column":48}}}) : helper))) != null ? stack1 : "")
    + ";\n\n/** What a reply to "
    + ((stack1 = (((helper = lookupProperty(helpers,"idComment") || alias1(depth0, "idComment", {"start":{"line":12,"column":23},"end":{"line":12,"column":32}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"idComment","hash":{},"data":data,"loc":{"start":{"line":12,"column":20},"end":{"line":12,"column":35}}}) : helper))) != null ? stack1 : "")
    + " may be. */\nexport type "
    + ((stack1 = (((helper = lookupProperty(helpers,"replyType") || alias1(depth0, "replyType", {"start":{"line":13,"column":14},"end":{"line":13,"column":23}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"replyType","hash":{},"data":data,"loc":{"start":{"line":13,"column":12},"end":{"line":13,"column":25}}}) : helper))) != null ? stack1 : "")
    + " = "
    + ((stack1 = (((helper = lookupProperty(helpers,"replyUnion") || alias1(depth0, "replyUnion", {"start":{"line":13,"column":31},"end":{"line":13,"column":41}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"replyUnion","hash":{},"data":data,"loc":{"start":{"line":13,"column":28},"end":{"line":13,"column":44}}}) : helper))) != null ? stack1 : "")
    + ";\n\n/**\n * Implement this to answer "
    + ((stack1 = (((helper = lookupProperty(helpers,"idComment") || alias1(depth0, "idComment", {"start":{"line":16,"column":31},"end":{"line":16,"column":40}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"idComment","hash":{},"data":data,"loc":{"start":{"line":16,"column":28},"end":{"line":16,"column":43}}}) : helper))) != null ? stack1 : "")
    + ": what `respond` returns is published as the reply,\n * with the request's correlation id. Requests are delivered at least once: answer idempotently.\n */\nexport interface "
    + ((stack1 = (((helper = lookupProperty(helpers,"responderType") || alias1(depth0, "responderType", {"start":{"line":19,"column":19},"end":{"line":19,"column":32}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"responderType","hash":{},"data":data,"loc":{"start":{"line":19,"column":17},"end":{"line":19,"column":34}}}) : helper))) != null ? stack1 : "")
    + " extends Responder<"
    + ((stack1 = (((helper = lookupProperty(helpers,"requestType") || alias1(depth0, "requestType", {"start":{"line":19,"column":55},"end":{"line":19,"column":66}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"requestType","hash":{},"data":data,"loc":{"start":{"line":19,"column":53},"end":{"line":19,"column":68}}}) : helper))) != null ? stack1 : "")
    + ", "
    + ((stack1 = (((helper = lookupProperty(helpers,"replyType") || alias1(depth0, "replyType", {"start":{"line":19,"column":72},"end":{"line":19,"column":81}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"replyType","hash":{},"data":data,"loc":{"start":{"line":19,"column":70},"end":{"line":19,"column":83}}}) : helper))) != null ? stack1 : "")
    + "> {}\n\n"
    + ((stack1 = (((helper = lookupProperty(helpers,"doc") || alias1(depth0, "doc", {"start":{"line":21,"column":3},"end":{"line":21,"column":6}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"doc","hash":{},"data":data,"loc":{"start":{"line":21,"column":0},"end":{"line":21,"column":9}}}) : helper))) != null ? stack1 : "")
    + "export const "
    + ((stack1 = (((helper = lookupProperty(helpers,"identifier") || alias1(depth0, "identifier", {"start":{"line":21,"column":24},"end":{"line":21,"column":34}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"identifier","hash":{},"data":data,"loc":{"start":{"line":21,"column":22},"end":{"line":21,"column":36}}}) : helper))) != null ? stack1 : "")
    + " = defineRequestReply<"
    + ((stack1 = (((helper = lookupProperty(helpers,"requestType") || alias1(depth0, "requestType", {"start":{"line":21,"column":60},"end":{"line":21,"column":71}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"requestType","hash":{},"data":data,"loc":{"start":{"line":21,"column":58},"end":{"line":21,"column":73}}}) : helper))) != null ? stack1 : "")
    + ", "
    + ((stack1 = (((helper = lookupProperty(helpers,"replyType") || alias1(depth0, "replyType", {"start":{"line":21,"column":77},"end":{"line":21,"column":86}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"replyType","hash":{},"data":data,"loc":{"start":{"line":21,"column":75},"end":{"line":21,"column":88}}}) : helper))) != null ? stack1 : "")
    + ">({\n  id: "
    + ((stack1 = (((helper = lookupProperty(helpers,"idLiteral") || alias1(depth0, "idLiteral", {"start":{"line":22,"column":9},"end":{"line":22,"column":18}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"idLiteral","hash":{},"data":data,"loc":{"start":{"line":22,"column":6},"end":{"line":22,"column":21}}}) : helper))) != null ? stack1 : "")
    + ",\n  request: "
    + ((stack1 = (((helper = lookupProperty(helpers,"requestChannel") || alias1(depth0, "requestChannel", {"start":{"line":23,"column":13},"end":{"line":23,"column":27}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"requestChannel","hash":{},"data":data,"loc":{"start":{"line":23,"column":11},"end":{"line":23,"column":29}}}) : helper))) != null ? stack1 : "")
    + ",\n  requestMessages: ["
    + ((stack1 = (((helper = lookupProperty(helpers,"requestMessages") || alias1(depth0, "requestMessages", {"start":{"line":24,"column":22},"end":{"line":24,"column":37}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"requestMessages","hash":{},"data":data,"loc":{"start":{"line":24,"column":20},"end":{"line":24,"column":39}}}) : helper))) != null ? stack1 : "")
    + "],\n  reply: "
    + ((stack1 = (((helper = lookupProperty(helpers,"replyChannel") || alias1(depth0, "replyChannel", {"start":{"line":25,"column":11},"end":{"line":25,"column":23}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"replyChannel","hash":{},"data":data,"loc":{"start":{"line":25,"column":9},"end":{"line":25,"column":25}}}) : helper))) != null ? stack1 : "")
    + ",\n  replyMessages: ["
    + ((stack1 = (((helper = lookupProperty(helpers,"replyMessages") || alias1(depth0, "replyMessages", {"start":{"line":26,"column":20},"end":{"line":26,"column":33}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"replyMessages","hash":{},"data":data,"loc":{"start":{"line":26,"column":18},"end":{"line":26,"column":35}}}) : helper))) != null ? stack1 : "")
    + "],\n  replyAddress: "
    + ((stack1 = (((helper = lookupProperty(helpers,"replyAddress") || alias1(depth0, "replyAddress", {"start":{"line":27,"column":19},"end":{"line":27,"column":31}} ))),(typeof helper === alias3 ? helper.call(alias2,{"name":"replyAddress","hash":{},"data":data,"loc":{"start":{"line":27,"column":16},"end":{"line":27,"column":34}}}) : helper))) != null ? stack1 : "")
    + ",\n});\n";
},"compiler":[8,">= 4.3.0"],"main":function(container,depth0,helpers,partials,data) {
    var stack1, helper, alias1=depth0 != null ? depth0 : (container.nullContext || {}), lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return ((stack1 = container.invokePartial(lookupProperty(partials,"header"),depth0,{"name":"header","data":data,"helpers":helpers,"partials":partials,"decorators":container.decorators})) != null ? stack1 : "")
    + "import { defineRequestReply, type Responder } from \"@keiyaku/runtime/codegen-v1\";\n"
    + ((stack1 = lookupProperty(helpers,"each").call(alias1,lookupProperty(depth0,"channelImports"),{"name":"each","hash":{},"fn":container.program(0, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":3,"column":0},"end":{"line":5,"column":9}}})) != null ? stack1 : "")
    + "import { "
    + ((stack1 = (((helper = lookupProperty(helpers,"messageImports") || container.strict(depth0, "messageImports", {"start":{"line":6,"column":11},"end":{"line":6,"column":25}} ))),(typeof helper === "function" ? helper.call(alias1,{"name":"messageImports","hash":{},"data":data,"loc":{"start":{"line":6,"column":9},"end":{"line":6,"column":27}}}) : helper))) != null ? stack1 : "")
    + " } from \"./messages.js\";\n"
    + ((stack1 = lookupProperty(helpers,"each").call(alias1,lookupProperty(depth0,"operations"),{"name":"each","hash":{},"fn":container.program(1, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":7,"column":0},"end":{"line":29,"column":9}}})) != null ? stack1 : "");
},"usePartial":true,"useData":true},
  "types.ts": {"0":function(container,depth0,helpers,partials,data) {
    var stack1, lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return ((stack1 = lookupProperty(helpers,"unless").call(depth0 != null ? depth0 : (container.nullContext || {}),lookupProperty(data,"first"),{"name":"unless","hash":{},"fn":container.program(1, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":3,"column":0},"end":{"line":5,"column":11}}})) != null ? stack1 : "")
    + ((stack1 = container.lambda(depth0, depth0)) != null ? stack1 : "")
    + "\n";
},"1":function(container,depth0,helpers,partials,data) {
    return "\n";
},"2":function(container,depth0,helpers,partials,data) {
    return "export {};\n";
},"compiler":[8,">= 4.3.0"],"main":function(container,depth0,helpers,partials,data) {
    var stack1, alias1=depth0 != null ? depth0 : (container.nullContext || {}), lookupProperty = container.lookupProperty || function(parent, propertyName) {
        if (Object.prototype.hasOwnProperty.call(parent, propertyName)) {
          return parent[propertyName];
        }
        return undefined
    };

  return ((stack1 = container.invokePartial(lookupProperty(partials,"header"),depth0,{"name":"header","data":data,"helpers":helpers,"partials":partials,"decorators":container.decorators})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"each").call(alias1,lookupProperty(depth0,"declarations"),{"name":"each","hash":{},"fn":container.program(0, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":2,"column":0},"end":{"line":7,"column":9}}})) != null ? stack1 : "")
    + ((stack1 = lookupProperty(helpers,"unless").call(alias1,lookupProperty(depth0,"declarations"),{"name":"unless","hash":{},"fn":container.program(2, data, 0),"inverse":container.noop,"data":data,"loc":{"start":{"line":8,"column":0},"end":{"line":10,"column":11}}})) != null ? stack1 : "");
},"usePartial":true,"useData":true},
};
